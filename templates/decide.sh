# fleet-git template copy: installed in new clones by `fleet-git setup` (init.templateDir).
	# It provisions only clones that the user config includes, decided without Node by the
	# `case` patterns fleet-git compiled from it; elsewhere it stays inert and writes nothing.
	# Once a repository is enabled (its info/exclude has fleet-git's block: found, read
	# just before), it is the same as the hook `fleet-git enable` writes.
	if [ -z "$found" ]; then
		r={{rules}}
		[ -f "$r" ] || return 0
		. "$r" || return 0
		cfg={{config}}
		stale=
		case $fleet_git_rules_cfg in
		present) { [ -f "$cfg" ] && ! [ "$cfg" -nt "$r" ]; } || stale=1 ;;
		*) [ -e "$cfg" ] && stale=1 ;;
		esac
		# Rules an older fleet-git compiled, in another dialect: compiled again too.
		[ "${fleet_git_rules_version-}" = {{version}} ] || stale=1
		if [ -n "$stale" ]; then
			# The config changed since it was compiled: fleet-git compiles it again, once.
			# (Each file holds one line, maybe without a final newline: read then fails but sets the variable.)
			n=$(command -v node 2>/dev/null) || { IFS= read -r n || [ -n "$n" ]; } <{{data}}/node || return 4
			{ IFS= read -r c || [ -n "$c" ]; } <{{data}}/cli || return 4
			"$n" "$c" config --compile-rules || return 4
			. "$r" || return 4
		fi
		cd -P . || return 1
		fleet_git_included "$PWD" || return 0
	fi
	# fleet-git template copy end
