# shellcheck shell=sh
# fleet-git's post-checkout script, kept in fleet-git's data folder as
# post-checkout.sh, which the post-checkout hook in a repository (and setup's
# copy and git config entries) sources once it ran the previous hook. A worktree
# that has fleet-git's hook file is done here, with shell builtins only: every
# branch switch takes this path. Its first 8 lines, through the first event's
# command (which names the data folder and the hook format) and timeout, are compared with
# the data folder's fleet.json: dash reads a byte per system call, and the whole
# file is some 2 KB. (An edit further down is left to enable, as status says.)
# Otherwise it hands over to fleet-git's own code in this kit, which provisions
# the worktree as `fleet-git enable` does (src/core/setup/checkout-hook.ts). In
# clone mode (setup's copy, fleet_git_mode=clone) it does so only for a new
# clone or worktree (the previous HEAD is the null commit, or the new one: the
# first checkout of a --no-checkout clone, a submodule's), not on every branch
# switch of every repository: that code then provisions a repository that is
# not enabled only when the config includes it.
# It never changes the hook's exit status (fleet_git_status) and never exits.
# shellcheck disable=SC2154 # fleet_git_mode and fleet_git_data are set by the hook that sources this file

# Whether files $1 and $2 begin with the same 8 lines.
fleet_git_same() {
	# shellcheck disable=SC2034 # fleet_git_i only counts
	for fleet_git_i in 1 2 3 4 5 6 7 8; do
		fleet_git_a='' fleet_git_b=''
		IFS= read -r fleet_git_a <&3
		fleet_git_x=$?
		IFS= read -r fleet_git_b <&4
		[ "$?:$fleet_git_b" = "$fleet_git_x:$fleet_git_a" ] || return 1
		[ "$fleet_git_x" = 0 ] || return 0
	done 3<"$1" 4<"$2"
}
fleet_git_say() {
	fleet_git_line="fleet-git post-checkout ($fleet_git_mode, kit {{kit}}): $PWD: $*"
	case ${FLEET_GIT_DEBUG-} in
	'') ;;
	/*) echo "$fleet_git_line" 2>/dev/null >>"$FLEET_GIT_DEBUG" ;;
	*) echo "$fleet_git_line" >&2 ;;
	esac
}
if [ -f .github/hooks/fleet.json ] && [ ! -L .github/hooks/fleet.json ] && [ -f "$fleet_git_data/fleet.json" ] &&
	fleet_git_same .github/hooks/fleet.json "$fleet_git_data/fleet.json"; then
	fleet_git_say ".github/hooks/fleet.json is in place and current: nothing to do"
elif [ "$fleet_git_mode" = clone ] && [ "${1-}" != 0000000000000000000000000000000000000000 ] && [ "${1-}" != "${2-}" ]; then
	fleet_git_say "left alone: not a new clone or worktree"
else
	# The node fleet-git last ran with (>= 20), else the one on PATH. NODE_EXTRA_CA_CERTS
	# emptied: it makes node read a file of certificates as it starts (some 80 ms here),
	# and this program makes no connection.
	fleet_git_node=node fleet_git_n=''
	{ IFS= read -r fleet_git_n || [ -n "$fleet_git_n" ]; } 2>/dev/null <"$fleet_git_data/node" && [ -x "$fleet_git_n" ] && fleet_git_node=$fleet_git_n
	# A kit that is gone is said so, not by node's stack trace for a missing file.
	fleet_git_why=
	if [ ! -f '{{hook}}' ]; then
		fleet_git_why="fleet-git's kit {{kit}} is gone from $fleet_git_data"
	elif ! NODE_EXTRA_CA_CERTS='' "$fleet_git_node" '{{hook}}' post-checkout "$fleet_git_mode" "$fleet_git_data" '{{kit}}' "$@" </dev/null >/dev/null; then
		fleet_git_why="$fleet_git_node could not run fleet-git's hook"
	fi
	[ -z "$fleet_git_why" ] || echo "fleet-git: could not add .github/hooks/fleet.json in $PWD ($fleet_git_why); run 'fleet-git enable' there" >&2
fi
