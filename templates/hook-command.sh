# shellcheck shell=sh disable=SC2034,SC1091,SC1083 # e is for hook.sh, which is the data folder's; {{event}} is a name
# The command of each event in a Copilot hook file fleet-git writes, its last
# line (these comment lines are not part of it): the shim. It names the data
# folder and the event, and sources the data folder's hook.sh (templates/hook.sh)
# with `.`, which starts no process; without it, it does nothing and exits 0.
# Its text depends only on the data folder and the hook format (the number at
# its end), so an upgrade of fleet-git rewrites no hook file.
d='{{data}}'; e={{event}}; [ -f "$d/hook.sh" ] && . "$d/hook.sh"; exit 0 # claude-code-fleet fleet-git hook {{format}}
