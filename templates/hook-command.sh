d={{data}}; e={{event}}; [ -f "$d/hook-client.cjs" ] || exit 0; exec 2>/dev/null; umask 077;
r=$XDG_RUNTIME_DIR; if [ -n "$r" ] && [ -d "$r" ] && [ -O "$r" ]; then s=$r/fleet-git; else s=$d/spool; fi;
[ -d "$s" ] || mkdir -m 700 "$s"; [ -O "$s" ] || exit 0; f=$s/${EPOCHREALTIME/[.,]/}.$$.ev;
if [ -p /dev/stdin ]; then v=$(</dev/stdin); else v=$(cat); fi;
if printf '%s\0' "$v" "$e" "$PPID" "$$" "$HOME" "$COPILOT_HOME" "$COPILOT_HOOK_DIR" "$COPILOT_MODEL" "$FLEET_MODEL_NAME" "$TERM_PROGRAM" "$ITERM_SESSION_ID" "$FLEET_GIT_OBSERVER_DIR" "$FLEET_GIT_PROBE" fleet-git-event-1 >"$f"; then
p=; c=; read -r p <"$s/forwarder.pid"; { kill -0 "$p" && { [ ! -r "/proc/$p/comm" ] || { read -r c <"/proc/$p/comm"; [ "$c" = fleet-git-forwa ] || [ "$c" = bash ]; }; }; } || { { [ -n "$p" ] || { set -C; echo $$ >"$s/forwarder.pid"; } || { [ -s "$s/forwarder.pid" ] || rm -f -- "$s/forwarder.pid"; false; }; } && { set -m; (unset NODE_EXTRA_CA_CERTS; n=node; command -v node >/dev/null || n=$(cat "$d/node"); "$n" "$d/hook-client.cjs" --forward "$s"; c=$?; [ $c -gt 0 ] && [ $c -lt 128 ] && rm -f -- "$s/forwarder.pid" && rm -f -- "$s"/*.ev) </dev/null >/dev/null & echo ${!:-$$} >|"$s/forwarder.pid"; }; };
elif [ -e "$f" ]; then rm -f -- "$f"; fi; exit 0 # claude-code-fleet fleet-git
