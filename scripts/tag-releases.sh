#!/usr/bin/env bash
# Checks releases.txt (each release VERSION FULL-COMMIT-SHA, oldest first) and
# makes an annotated tag v<VERSION> on each release's commit that has none yet.
# A line is right when its commit is in this clone's history (an ancestor of
# HEAD), package.json there has that version, and the versions rise line by
# line. A tag that exists on another commit is an error, never moved.
#   scripts/tag-releases.sh          check, then tag (local only: push the tags yourself)
#   scripts/tag-releases.sh --check  check only (test/upgrade.test.ts runs this)
# Exit 0 when every line is right (and tagged), 1 naming the first wrong line,
# 2 for an unknown option.
set -euo pipefail
cd "$(dirname "$0")/.."
check_only=
case ${1-} in
'') ;;
--check) check_only=1 ;;
*)
	echo "tag-releases: unknown option '$1' (use --check, or nothing to tag)" >&2
	exit 2
	;;
esac

fail() {
	echo "tag-releases: releases.txt line $n: $*" >&2
	exit 1
}

n=0
prev=
releases=()
while IFS= read -r line || [ -n "$line" ]; do
	n=$((n + 1))
	case $line in '' | '#'*) continue ;; esac
	read -r version sha rest <<<"$line"
	if [ -n "${rest-}" ] || [ -z "${sha-}" ]; then fail "'$line' is not 'VERSION FULL-COMMIT-SHA'"; fi
	[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "'$version' is not a version such as 1.2.3"
	[[ $sha =~ ^[0-9a-f]{40}$ ]] || fail "'$sha' is not a full commit sha (40 hex digits: git rev-parse gives it)"
	git cat-file -e "$sha^{commit}" 2>/dev/null || fail "$sha is no commit of this clone (a shallow clone? git fetch --unshallow)"
	git merge-base --is-ancestor "$sha" HEAD || fail "$sha is not in the history of HEAD"
	at=$(git show "$sha:package.json" 2>/dev/null | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).version))') ||
		fail "$sha has no package.json that node can read"
	[ "$at" = "$version" ] || fail "package.json at $sha has version $at, not $version"
	if [ -n "$prev" ]; then
		later=$(printf '%s\n%s\n' "$prev" "$version" | sort -V | tail -n 1)
		if [ "$later" != "$version" ] || [ "$prev" = "$version" ]; then fail "$version does not come after $prev (oldest first)"; fi
	fi
	prev=$version
	releases+=("$version $sha")
done <releases.txt
if [ ${#releases[@]} -eq 0 ]; then
	echo "tag-releases: releases.txt lists no release" >&2
	exit 1
fi
[ -z "$check_only" ] || exit 0

for r in "${releases[@]}"; do
	read -r version sha <<<"$r"
	tag=v$version
	if on=$(git rev-parse -q --verify "refs/tags/$tag^{commit}"); then
		[ "$on" = "$sha" ] || {
			echo "tag-releases: $tag is on $on, not on $sha as releases.txt says: left as it is (git tag -d $tag, then run this again, if the file is right)" >&2
			exit 1
		}
		echo "$tag: already on $sha"
	else
		git tag -a "$tag" -m "fleet-git $version" "$sha"
		echo "$tag: tagged $sha"
	fi
done
