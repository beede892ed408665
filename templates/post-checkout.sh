# shellcheck shell=sh
# fleet-git's post-checkout script, kept in fleet-git's data folder as
# post-checkout.sh. The post-checkout hook fleet-git puts in a repository's
# git dir (and setup's template folder) is a few stable lines that run the
# hook that was there before, then source this file with `.`: it gives each
# new worktree and clone the Copilot hook file that reports to the fleet
# observer (claude-code-fleet), excluded from commits. The hook sets
# fleet_git_mode: `repo` (written by enable: provision as enable would) or
# `clone` (setup's template copy: provision only clones that the user config
# includes, decided without Node). It prints nothing but one line on stderr
# when it could not do its work, and never fails the git command: the hook's
# exit status stays the previous hook's (fleet_git_status, which this file
# leaves alone). Mostly shell builtins: it runs on every checkout.
#
# fleet-git replaces this file by renaming a new one into place, together with
# the hook client it names (kit/<build>/): a checkout reads one whole file,
# old or new, and runs that file's client.
#
# FLEET_GIT_DEBUG=1 says on stderr what it does and why (an absolute path:
# appended to that file instead).
# shellcheck disable=SC2154 # fleet_git_mode is set by the hook that sources this file

fleet_git_src='{{canonical}}'
# The same hook file's text (the kit is rendered with it, core/repo/kit.ts): a new
# worktree's copy is written by printf, a builtin, not by one more process.
# shellcheck disable=SC2016 # the commands in it are text here
fleet_git_json='{{hookfile}}'
fleet_git_dir='{{data}}'
fleet_git_client='{{client}}'

# Says what the hook does, on fd 4 (FLEET_GIT_DEBUG); nothing otherwise.
fleet_git_say() {
	[ -z "${FLEET_GIT_DEBUG-}" ] || echo "fleet-git post-checkout ($fleet_git_mode, kit {{kit}}): $PWD: $*" >&4
}

# Sets r to the text of file $1 without its final newline, with builtins only.
fleet_git_read() {
	r=
	while IFS= read -r fleet_git_line || [ -n "$fleet_git_line" ]; do r="$r$fleet_git_line
"; done <"$1" || return 1
	r=${r%?}
}

# Returns 1, saying which on fd 3, when one of the paths is a symbolic link:
# fleet-git writes, creates and removes nothing through one ([ -f ] would follow it).
fleet_git_nolink() {
	for p; do
		[ -L "$p" ] && { echo "fleet-git: left $PWD alone: $p is a symbolic link, and fleet-git writes nothing through one (see 'fleet-git status' there)" >&3; return 1; }
	done
	return 0
}

# Whether the process that holds the lock file $1 is gone, judged as fleet-git
# judges it (src/fs/lock.ts): its PID is not alive or, when the file says when it
# started (`start TICKS BOOT-ID`, from /proc), the process of that PID started at
# another time or in another boot. A file naming no PID (being written) is not.
fleet_git_gone() {
	h=
	hs=
	{ IFS= read -r h && IFS= read -r hs; } <"$1"
	case $h in "" | *[!0-9]*) return 1 ;; esac
	kill -0 "$h" || [ -d "/proc/$h" ] || return 0
	case $hs in "start "*) ;; *) return 1 ;; esac
	# shellcheck disable=SC2086 # split into its words on purpose
	set -- $hs
	[ -n "$boot" ] && [ "$3" != "$boot" ] && return 0
	t=$2
	IFS= read -r hs <"/proc/$h/stat" || return 1
	# shellcheck disable=SC2086 # split into its words on purpose
	set -- ${hs##*) }
	shift 19
	[ "$1" != "$t" ]
}

# Takes fleet-git's lock of the repository ($1), as its commands take it: made
# exclusively (noclobber), holding this shell's PID and, where /proc tells, its
# start time and the boot's id; removed as this shell exits, also on a signal
# (a SIGKILL leaves it to be judged stale). A live holder is waited for about
# 2 s; a dead one's lock is taken over, one taker at a time under $1.stale, as
# fleet-git does. Returns 6, saying so on fd 3, when it stays held; 1 when it
# cannot be made.
fleet_git_lock() {
	lock=$1
	boot=
	# /proc/self is this shell, the hook's own (its $$).
	if IFS= read -r me </proc/self/stat && IFS= read -r boot </proc/sys/kernel/random/boot_id; then
		# shellcheck disable=SC2086 # split into its words on purpose
		set -- ${me##*) }
		shift 19
		me="${me%% *}
start $1 $boot
"
	else
		me="$$
"
	fi
	tries=0
	while :; do
		[ -L "$lock" ] && { echo "fleet-git: left $PWD alone: $lock is a symbolic link, not a lock fleet-git made: remove it, then run 'fleet-git enable' there" >&3; return 5; }
		set -C
		printf "" >"$lock"
		got=$?
		set +C
		if [ $got = 0 ]; then
			# Made: ours. Its text written after (a full disk: removed again, and nothing done).
			printf %s "$me" >>"$lock" && break
			rm -f "$lock"
			return 1
		fi
		if [ ! -e "$lock" ]; then
			# Released meanwhile, or it cannot be made (an unwritable git dir): a few tries tell.
			tries=$((tries + 10))
		elif fleet_git_gone "$lock"; then
			set -C
			printf "" >"$lock.stale"
			g=$?
			set +C
			if [ $g = 0 ]; then
				printf %s "$me" >>"$lock.stale" || { rm -f "$lock.stale"; return 1; }
				# Judged again under the guard: another one may have taken it over and holds it now.
				fleet_git_gone "$lock" && rm -f "$lock"
				rm -f "$lock.stale"
				tries=$((tries + 1))
				continue
			fi
			fleet_git_gone "$lock.stale" && rm -f "$lock.stale"
		fi
		tries=$((tries + 1))
		[ $tries -gt 40 ] && break
		sleep 0.05 || break
	done
	[ "$got" = 0 ] || {
		[ -e "$lock" ] || return 1
		lock=$(cd "${lock%/*}" && pwd -P)/${lock##*/}
		echo "fleet-git: left $PWD as git made it: another fleet-git holds $lock; run 'fleet-git enable' there once it is done (if none is running, remove that file)" >&3
		return 6
	}
	trap 'LC_ALL=C rm -f "$lock" 2>/dev/null' EXIT
	trap 'exit 1' HUP INT TERM
}

# Nothing is written without the lock fleet-git's commands take: a checkout
# that finds everything in place takes none; at its first write, it takes the
# lock and reads everything again under it (another fleet-git may have been
# changing the repository meanwhile), then goes on.
fleet_git_held=
fleet_git_relock() {
	fleet_git_lock "$common/"'{{lock}}' || return
	fleet_git_held=1
	fleet_git_provision "$@"
}

# Prints nothing but fleet_git_nolink's and fleet_git_lock's lines, reads nothing;
# returns 3 when fleet-git's files are gone, 5 for a symbolic link, 6 when
# another fleet-git holds the repository's lock, 1 on failure.
fleet_git_provision() {
	src=$fleet_git_src
	dst=.github/hooks/fleet.json
	# The git dirs, read as git does (no git process): $GIT_DIR, or ./.git.
	gd=${GIT_DIR:-.git}
	if [ -f "$gd" ]; then
		fleet_git_read "$gd" || return 1
		gd=${r#gitdir: }
		# Relative to the folder holding the .git file: the worktree's top, where git runs hooks.
		case $gd in /*) ;; *) gd=./$gd ;; esac
	fi
	common=$gd
	if [ -f "$gd/commondir" ]; then
		fleet_git_read "$gd/commondir" || return 1
		case $r in /*) common=$r ;; *) common=$gd/$r ;; esac
	fi
	# Whether info/exclude has fleet-git's block (found: the repository is
	# enabled), whether it ends with a newline (nl), and its size in bytes when
	# not found (the C locale: ${#line} counts bytes), to cut a failed append back.
	# A block, as enable reads it (src/core/exclude.ts): the BEGIN line nearest an
	# END line, then that END, with the hook file's pattern line between them; a
	# lone BEGIN line is not one.
	ex=$common/info/exclude
	found=
	nl=1
	size=0
	if [ -f "$ex" ]; then
		lc_set=${LC_ALL+1} lc=${LC_ALL-}
		LC_ALL=C
		in=
		while IFS= read -r line || { [ -n "$line" ] && nl=; }; do
			if [ "$line" = '{{begin}}' ]; then in=b
			elif [ -n "$in" ] && [ "$line" = '{{end}}' ]; then [ "$in" = p ] && { found=1; break; }; in=
			elif [ -n "$in" ] && [ "$line" = '{{pattern}}' ]; then in=p
			fi
			size=$((size + ${#line} + 1))
		done <"$ex"
		if [ -n "$lc_set" ]; then LC_ALL=$lc; else unset LC_ALL; fi
	fi
	# In setup's template copy (fleet_git_mode=clone), a clone that is not
	# enabled yet is provisioned only when the user config includes it, decided
	# without Node by the `case` patterns fleet-git compiled from it
	# (clone-rules.sh); elsewhere the hook stays inert and writes nothing. Once
	# a repository is enabled, the copy does what the hook enable writes does.
	if [ -z "$found" ] && [ "${fleet_git_mode-}" = clone ]; then
		r='{{rules}}'
		[ -f "$r" ] || { fleet_git_say "left alone: not enabled, and no clone rules ($r: run fleet-git setup)"; return 0; }
		# shellcheck disable=SC1090 # compiled by fleet-git config --compile-rules
		. "$r" || return 0
		cfg='{{config}}'
		stale=
		# shellcheck disable=SC3013 # -nt: dash, bash, ksh and busybox sh all have it
		case $fleet_git_rules_cfg in
		present) { [ -f "$cfg" ] && ! [ "$cfg" -nt "$r" ]; } || stale=1 ;;
		*) [ -e "$cfg" ] && stale=1 ;;
		esac
		# Rules an older fleet-git compiled, in another dialect: compiled again too.
		[ "${fleet_git_rules_version-}" = '{{version}}' ] || stale=1
		if [ -n "$stale" ]; then
			# The config changed since it was compiled: fleet-git compiles it again, once.
			# (Each file holds one line, maybe without a final newline: read then fails but sets the variable.)
			fleet_git_say "the config changed since its rules were compiled: compiling them again"
			n=$(command -v node 2>/dev/null) || { IFS= read -r n || [ -n "$n" ]; } <"$fleet_git_dir/node" || return 4
			{ IFS= read -r c || [ -n "$c" ]; } <"$fleet_git_dir/cli" || return 4
			"$n" "$c" config --compile-rules || return 4
			# shellcheck disable=SC1090 # compiled by fleet-git config --compile-rules
			. "$r" || return 4
		fi
		cd -P . || return 1
		fleet_git_included "$PWD" || { fleet_git_say "left alone: the config's include and exclude rules leave this clone out"; return 0; }
		fleet_git_say "the config's rules include this clone: provisioning it"
	fi
	[ -f "$src" ] || { [ -f "$dst" ] && { fleet_git_say "fleet-git's hook file $src is gone: left $dst as it is"; return 0; }; return 3; }
	fleet_git_nolink "$common/info" "$ex" "$common/fleet-git-created" "$gd/fleet-git-created" || return 5

	# The exclude block, as enable adds it: appended to info/exclude when that ends
	# with a newline, else put first, so that no byte of the user's changes.
	if [ -z "$found" ]; then
		[ -n "$fleet_git_held" ] || { fleet_git_relock "$@"; return; }
		if [ ! -d "$common/info" ]; then
			# Recorded first: a kill in between leaves no folder nobody recorded.
			echo info >>"$common/fleet-git-created" && mkdir "$common/info" || return 1
		fi
		if [ ! -f "$ex" ]; then
			printf '%s\n' '{{begin}}' '{{pattern}}' '{{end}}' >"$ex" || { rm -f "$ex"; return 1; }
			echo info/exclude >>"$common/fleet-git-created" || return 1
			fleet_git_say "added fleet-git's block to $ex"
		elif [ -n "$nl" ]; then
			# A full disk writes part of the block, then fails: cut back to the user's bytes (dd truncates at seek=).
			printf '%s\n' '{{begin}}' '{{pattern}}' '{{end}}' >>"$ex" || { dd if=/dev/null of="$ex" bs=1 seek="$size" 2>/dev/null; return 1; }
		else
			tmp=$ex.fleet-git-$$.tmp
			# shellcheck disable=SC2015 # any step failing removes the temporary file
			cp -p "$ex" "$tmp" && { printf '%s\n' '{{begin}}' '{{pattern}}' '{{end}}' && cat "$ex"; } >"$tmp" && mv -f "$tmp" "$ex" || { rm -f "$tmp"; return 1; }
		fi
	fi

	# The hook file: written when missing, rewritten when fleet-git's and not current;
	# someone else's file, and any path git tracks, are left alone.
	fleet_git_nolink .github .github/hooks "$dst" || return 5
	if [ -f "$dst" ]; then
		# Compared and copied by cmp and cp, one program each: the hook file is
		# several KiB, and dash's read makes one system call per byte.
		cmp -s "$src" "$dst" && { fleet_git_say "$dst is in place and current: nothing to do"; return 0; }
		fleet_git_read "$dst" || return 1
		# Someone else's file: left alone. One that names fleet-git's mark is fleet-git's
		# only when one of its commands does, which its JSON tells: the hook client
		# reads it as enable does (node, only for a file that is not the current one).
		case $r in *'{{mark}}'*) ;; *) fleet_git_say "left $dst alone: it is not fleet-git's"; return 0 ;; esac
		n=node
		command -v node >/dev/null || { fleet_git_read "$fleet_git_dir/node" && n=$r; } || return 0
		(unset NODE_EXTRA_CA_CERTS; exec "$n" "$fleet_git_client" '{{ours}}' "$dst") || { fleet_git_say "left $dst alone: its commands are not fleet-git's"; return 0; }
	fi
	[ -n "$fleet_git_held" ] || { fleet_git_relock "$@"; return; }
	# A fresh full checkout (clone, worktree add) has every tracked file: an absent
	# one is untracked. Otherwise ask git.
	if [ -f "$dst" ] || [ "$1" != 0000000000000000000000000000000000000000 ] || [ -f "$gd/info/sparse-checkout" ] || [ -f "$common/info/sparse-checkout" ]; then
		git ls-files --error-unmatch -- "$dst" >/dev/null && { fleet_git_say "left $dst alone: git tracks it"; return 0; }
	fi
	if [ ! -d .github/hooks ]; then
		made=
		[ -d .github ] || made=.github
		for d in $made .github/hooks; do echo "$d" >>"$gd/fleet-git-created" || return 1; done
		# (LC_ALL=C here and below: a program started in the C locale loads no locale files.)
		LC_ALL=C mkdir -p .github/hooks || return 1
	fi
	# Temporary files a killed hook left (named as fleet-git's, see staleTemps): removed when their process is gone.
	for t in .github/hooks/.fleet.json.fleet-git-*.tmp .github/hooks/fleet.json.fleet-git-*.tmp; do
		{ [ -f "$t" ] && [ ! -L "$t" ]; } || continue
		p=${t##*.fleet-git-}
		p=${p%.tmp}
		p=${p%%-*}
		kill -0 "$p" 2>/dev/null || rm -f "$t"
	done
	# Written whole under a temporary name in the same folder, then renamed: a kill
	# in between leaves no half-written hook file (a session may read it at once).
	tmp=.github/hooks/.fleet.json.fleet-git-$$.tmp
	{ printf %s "$fleet_git_json" >"$tmp" && LC_ALL=C mv -f "$tmp" "$dst"; } || { rm -f "$tmp"; return 1; }
	fleet_git_say "wrote $dst (a copy of $src)"
}

# Runs with stdin and stdout on /dev/null, fd 3 the hook's stderr (the one line a
# user reads), fd 4 what fleet_git_say says (a file that cannot be opened:
# nowhere), and stderr nowhere. In the hook's own shell, not a subshell (one
# process less): the hook exits right after, which removes the lock (its trap).
fleet_git_run() {
	fleet_git_provision "$@" </dev/null >/dev/null 2>/dev/null
}
case ${FLEET_GIT_DEBUG-} in
1) fleet_git_run "$@" 3>&2 4>&2 ;;
/*) if true 2>/dev/null >>"$FLEET_GIT_DEBUG"; then fleet_git_run "$@" 3>&2 4>>"$FLEET_GIT_DEBUG"; else fleet_git_run "$@" 3>&2 4>/dev/null; fi ;;
*) fleet_git_run "$@" 3>&2 4>/dev/null ;;
esac
case $? in
0 | 5 | 6) ;;
4) echo "fleet-git: left this clone as git made it: the fleet-git config changed and could not be read again (run 'fleet-git config')" >&2 ;;
3) echo "fleet-git: found no fleet-git install ($fleet_git_src is gone); run 'fleet-git enable' to repair or 'fleet-git disable' to remove this hook" >&2 ;;
*) echo "fleet-git: could not add .github/hooks/fleet.json in $(pwd); run 'fleet-git enable' there" >&2 ;;
esac
