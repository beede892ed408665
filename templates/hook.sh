# shellcheck shell=bash
# fleet-git's Copilot hook, kept in fleet-git's data folder as hook.sh.
#
# Each command of a repository's .github/hooks/fleet.json is one short line,
# the shim, that sets the data folder (d) and the event (e) and sources this
# file with bash's `.` (no process started for the hand-over):
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
# Written for bash 3.2 too (macOS's /bin/bash): EPOCHREALTIME and /proc may be
# missing, and no bash 4 syntax is used.
# shellcheck disable=SC2154 # d and e are set by the shim that sources this file

# FLEET_GIT=0: fleet-git's hooks do nothing.
[ "${FLEET_GIT-}" = 0 ] && exit 0

# The hook client of this file's build (kit {{kit}}).
k='{{client}}'
[ -f "$k" ] || exit 0

# FLEET_GIT_DEBUG=1 says on stderr what the hook does; an absolute path appends
# it to that file instead. Otherwise stderr goes nowhere: the hook says nothing.
w=/dev/null
case ${FLEET_GIT_DEBUG-} in
'') exec 2>/dev/null ;;
1) ;;
/*) if true 2>/dev/null >>"$FLEET_GIT_DEBUG"; then exec 2>>"$FLEET_GIT_DEBUG" && w=$FLEET_GIT_DEBUG; else exec 2>/dev/null; fi ;;
*) exec 2>/dev/null ;;
esac
fleet_git_say() {
	[ -n "${FLEET_GIT_DEBUG-}" ] && echo "fleet-git hook ($e, kit {{kit}}): $*" >&2
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
# Without EPOCHREALTIME (bash 3.2), n.<pid>.ev, ordered by the file's time; a
# PID that came back while a file of it still waits takes n.<pid>.<random>.ev.
# The format is fleet-git-event-1 whatever the release: a forwarder of an
# older or newer fleet-git reads it.
t=${EPOCHREALTIME/[.,]/}
f=$s/${t:-n}.$$.ev
if [ -z "$t" ]; then
	while [ -e "$f" ]; do f=$s/n.$$.$RANDOM.ev; done
fi
if [ -p /dev/stdin ]; then v=$(</dev/stdin); else v=$(cat); fi
if ! printf '%s\0' "$v" "$e" "$PPID" "$$" "$HOME" "${COPILOT_HOME-}" "${COPILOT_HOOK_DIR-}" "${COPILOT_MODEL-}" \
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
	case $o in /*) ;; *) o=$HOME/.config/claude-code-fleet ;; esac
	[ -S "$o/fleet.sock" ] || fleet_git_say "no fleet observer listens at $o/fleet.sock: the forwarder drops the event (start fleet's observer)"
fi

# The forwarder named in forwarder.pid is alive, and (where /proc tells) is a
# forwarder or the shell that is starting one: it will send this event.
p=
c=
read -r p 2>/dev/null <"$s/forwarder.pid"
if kill -0 "$p" 2>/dev/null && { [ ! -r "/proc/$p/comm" ] || { read -r c <"/proc/$p/comm" && { [ "$c" = fleet-git-forwa ] || [ "$c" = bash ]; }; }; }; then
	fleet_git_say "forwarder $p runs: it sends the event"
	exit 0
fi

# Otherwise this hook claims forwarder.pid and starts one. The claim is made
# exclusively (noclobber): hooks of sessions firing at once start one
# forwarder, not one each. A pid there that is gone (a forwarder that was
# killed) is taken over; an empty file is a claim in progress, left alone
# unless the oldest waiting event is over 5 s old (its hook died; without a
# clock, bash 3.2: unless this hook's event file is newer than the claim).
fleet_git_claim() {
	set -C
	if echo $$ 2>/dev/null >"$s/forwarder.pid"; then
		set +C
		return 0
	fi
	set +C
	return 1
}
fleet_git_abandoned() {
	[ ! -s "$s/forwarder.pid" ] || return 1
	if [ -z "$t" ]; then
		[ "$f" -nt "$s/forwarder.pid" ]
		return
	fi
	o=
	for o in "$s"/*.ev; do break; done
	o=${o##*/}
	o=${o%%.*}
	case $o in
	'' | *[!0-9]*) return 1 ;;
	esac
	[ $((t - o)) -gt 5000000 ]
}
if [ -n "$p" ] || fleet_git_claim || { fleet_git_abandoned && rm -f -- "$s/forwarder.pid" && fleet_git_claim; }; then
	# Its own process group (set -m), no stdio: Copilot never waits for it. A
	# forwarder that fails (exit 1 to 127: node too old, a broken client) takes
	# its claim and the waiting events with it, so nothing piles up. It is told
	# this hook's pid ($$, in the subshell too): this hook writes the subshell's
	# pid to forwarder.pid after starting it, and a forwarder waits for this
	# hook to be gone before it leaves, so that write never comes after it.
	set -m
	(
		unset NODE_EXTRA_CA_CERTS
		n=node
		command -v node >/dev/null || n=$(cat "$d/node")
		FLEET_GIT_STARTER=$$ "$n" "$k" --forward "$s"
		c=$?
		[ $c -gt 0 ] && [ $c -lt 128 ] && rm -f -- "$s/forwarder.pid" && rm -f -- "$s"/*.ev
	) </dev/null >/dev/null 2>>"$w" &
	echo "${!:-$$}" >|"$s/forwarder.pid"
	fleet_git_say "started a forwarder (job $!) with $k"
else
	fleet_git_say "another hook is starting a forwarder: it sends the event"
fi
exit 0
