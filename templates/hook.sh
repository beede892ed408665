# shellcheck shell=sh
# fleet-git's Copilot hook, kept in fleet-git's data folder as hook.sh.
#
# Each command of a repository's .github/hooks/fleet.json is one short line,
# the shim, that sets the data folder (d) and the event (e) and sources this
# file with the shell's `.` (no process started for the hand-over):
#
#   d='<data folder>'; e=postToolUse; [ -f "$d/hook.sh" ] && . "$d/hook.sh"; exit 0 # claude-code-fleet fleet-git hook 2
#
# It writes the event to a spool folder and starts the forwarder (the hook
# client's --forward, src/copilot/forwarder.ts) when none runs; the forwarder
# hands the events to the fleet observer in order. Nothing here starts node or
# waits for anything: Copilot waits for this hook on every tool call. It
# always exits 0 and never writes to stdout (Copilot reads some hooks' stdout
# as instructions). fleet-git replaces this file by renaming a new one into
# place, together with the hook client it names (kit/<build>/): an event
# reads one whole file, old or new, and runs that file's client.
#
# Plain POSIX sh: the Copilot CLI runs the shim with bash, VS Code's agent with
# /bin/sh (dash on Debian and Ubuntu, bash 3.2 as sh on macOS, BusyBox ash on
# Alpine). bash's EPOCHREALTIME (BusyBox ash has it too) and $(</dev/stdin)
# are used where the shell has them, and nothing else of bash. Nothing here may
# end the shell with a non-zero status (VS Code reads 2 as a blocking error):
# every way out is `exit 0`, `exec` redirects only to /dev/null (a failed
# redirection of `exec` ends the shell), and numbers are checked to be plain
# digits before arithmetic takes them.
# shellcheck disable=SC2154 # d and e are set by the shim that sources this file

# FLEET_GIT=0: fleet-git's hooks do nothing.
[ "${FLEET_GIT-}" = 0 ] && exit 0

# The hook client of this file's build (kit {{kit}}).
k='{{client}}'
[ -f "$k" ] || exit 0

# FLEET_GIT_DEBUG=1 says on stderr what the hook does; an absolute path appends
# it to that file instead (w), line by line: the shell's own stderr is never
# sent there by `exec`, whose failure would end the shell (and bash 3.2, as
# macOS ships it, spins at exit after `command exec 2>>file`). Otherwise
# stderr goes nowhere: the hook says nothing.
w=/dev/null
case ${FLEET_GIT_DEBUG-} in
1) ;;
/*)
	exec 2>/dev/null
	true >>"$FLEET_GIT_DEBUG" && w=$FLEET_GIT_DEBUG
	;;
*) exec 2>/dev/null ;;
esac
fleet_git_say() {
	[ -n "${FLEET_GIT_DEBUG-}" ] || return 0
	m="fleet-git hook ($e, kit {{kit}}): $*"
	case $FLEET_GIT_DEBUG in /*) echo "$m" >>"$w" ;; *) echo "$m" >&2 ;; esac
	return 0
}
umask 077

# The spool folder: $XDG_RUNTIME_DIR/fleet-git when that folder is this
# user's, else the data folder's spool/; made 0700, and used only when this
# user owns it.
r=${XDG_RUNTIME_DIR-}
if [ -n "$r" ] && [ -d "$r" ] && [ -O "$r" ]; then s=$r/fleet-git; else s=$d/spool; fi
[ -d "$s" ] || mkdir -m 700 "$s"
[ -O "$s" ] || {
	fleet_git_say "the spool folder $s is not this user's (or cannot be made): event dropped"
	exit 0
}

# One file per event, named by the clock in microseconds (the forwarder's
# order) and this shell's pid: the payload, then the hook's facts, each ended
# by a NUL byte, the trailer last (a file without it is still being written).
# Without EPOCHREALTIME (bash 3.2, dash), n.<pid>.ev, ordered by the file's
# time; a PID that came back while a file of it still waits takes
# n.<pid>.<count>.ev. The format is fleet-git-event-1 whatever the release: a
# forwarder of an older or newer fleet-git reads it.
# shellcheck disable=SC3028 # bash's and BusyBox ash's clock; empty in other shells, which take the fallback
t=${EPOCHREALTIME-}
case $t in *[.,]*) t=${t%[.,]*}${t#*[.,]} ;; *) t= ;; esac
case $t in *[!0-9]* | 0*) t= ;; esac
f=$s/${t:-n}.$$.ev
if [ -z "$t" ]; then
	i=0
	while [ -e "$f" ]; do f=$s/n.$$.$((i += 1)).ev; done
fi
# The payload: bash reads a pipe itself ($(<file), hidden from other shells by
# eval, as dash would read it as an empty command); cat otherwise (a socket, as
# node gives its children, cannot be opened as /dev/stdin). A closed stdin reads
# as empty (the copy to fd 3 fails): bash would give cat the read end of cat's
# own output as its stdin, and wait.
true 2>/dev/null 3<&0 || exec </dev/null
if [ -n "${BASH_VERSION-}" ] && [ -p /dev/stdin ]; then eval 'v=$(</dev/stdin)'; else v=$(cat); fi
if ! printf '%s\0' "$v" "$e" "$PPID" "$$" "${HOME-}" "${COPILOT_HOME-}" "${COPILOT_HOOK_DIR-}" "${COPILOT_MODEL-}" \
	"${FLEET_MODEL_NAME-}" "${TERM_PROGRAM-}" "${ITERM_SESSION_ID-}" "${FLEET_GIT_OBSERVER_DIR-}" "${FLEET_GIT_PROBE-}" \
	fleet-git-event-1 >"$f"; then
	# A full disk or an unwritable folder: nothing half-written is left behind.
	[ -e "$f" ] && rm -f -- "$f"
	fleet_git_say "could not write the event to $f: event dropped"
	exit 0
fi
fleet_git_say "event written to $f"
if [ -n "${FLEET_GIT_DEBUG-}" ]; then
	# The observer's socket, as the forwarder finds it (FLEET_GIT_OBSERVER_DIR when absolute).
	o=${FLEET_GIT_OBSERVER_DIR-}
	case $o in /*) ;; *) o=${HOME-}/.config/claude-code-fleet ;; esac
	[ -S "$o/fleet.sock" ] || fleet_git_say "no fleet observer listens at $o/fleet.sock: the forwarder drops the event (start fleet's observer)"
fi

# Whether a forwarder runs is told by its lease, forwarder.lease, never by a
# PID (the protocol: the top of src/copilot/forwarder.ts), with builtins only:
# with EPOCHREALTIME, its deadline (microseconds) against the clock, one over
# 5 s ahead being a clock set back; without (bash 3.2, dash), its file time
# after this event file's, and the lock's, forwarder.sock (the deadline less
# 5 s), not. An empty one is a hook's claim (below), or a clockless shell's:
# it holds while no older than it.
# shellcheck disable=SC3013 # -nt: dash, bash and BusyBox ash all have it
fleet_git_leased() {
	l=
	read -r l _ 2>/dev/null <"$s/forwarder.lease" || [ -e "$s/forwarder.lease" ] || return 1
	case $l in
	'') [ ! "$f" -nt "$s/forwarder.lease" ] ;;
	*[!0-9]* | 0*) return 1 ;;
	*) if [ -n "$t" ]; then [ "$l" -gt "$t" ] && [ $((l - t)) -le 5000000 ]; else [ "$s/forwarder.lease" -nt "$f" ] && [ ! "$s/forwarder.sock" -nt "$f" ]; fi ;;
	esac
}
if fleet_git_leased; then
	fleet_git_say "a forwarder holds the lease: it sends the event"
	exit 0
fi

# Otherwise this hook claims the lease for 3 s (without a clock, for no time)
# and starts a forwarder. The claim is made exclusively (noclobber)
# where there is no lease, and judged again where that fails: the hooks fired
# together, or while node starts, start one forwarder, not one each. Where
# two start one anyway, the forwarder's socket lock keeps one.
u=
[ -n "$t" ] && u=$((t + 3000000))
set -C
if { echo "$u" >"$s/forwarder.lease"; } 2>/dev/null; then
	set +C
else
	set +C
	if fleet_git_leased; then
		fleet_git_say "another hook is starting a forwarder: it sends the event"
		exit 0
	fi
	echo "$u" >|"$s/forwarder.lease"
fi
# The forwarder runs in a subshell of its own process group (set -m), no
# stdio, so Copilot never waits for it. The subshell starts it again when a
# signal other than SIGTERM ended it (SIGKILL, the OOM killer, a crash: up to
# 3 times), and when it failed (exit 1 to 127: node too old, a broken client)
# removes the waiting events, so nothing piles up. Where setsid exists (Linux),
# the forwarder runs in a session of its own: Linux shares the CPU between
# sessions first (autogroup), so a terminal whose Copilot runs a build does
# not starve the forwarder that serves every session.
# `command`: a shell that refuses set -m (zsh as sh) goes on; dash and BusyBox
# ash cannot without a terminal: setsid does it.
command set -m 2>/dev/null
(
	unset NODE_EXTRA_CA_CERTS
	n=node
	command -v node >/dev/null || n=$(cat "$d/node")
	x=
	command -v setsid >/dev/null && x=setsid
	i=0
	# shellcheck disable=SC2086 # $x: setsid, or no word at all
	while $x "$n" "$k" --forward "$s"; c=$?; [ $c -gt 128 ] && [ $c -ne 143 ] && [ $((i += 1)) -le 3 ]; do :; done
	# The lease first: a hook that still saw it wrote its event before, so the events' removal takes it.
	[ $c -gt 0 ] && [ $c -lt 128 ] && rm -f -- "$s/forwarder.lease" && rm -f -- "$s"/*.ev
) </dev/null >/dev/null 2>>"$w" &
fleet_git_say "started a forwarder (job $!) with $k"
exit 0
