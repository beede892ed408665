d={{data}}; n=$(command -v node 2>/dev/null || cat "$d/node" 2>/dev/null); [ -f "$d/hook-client.cjs" ] && [ -x "$n" ] && exec "$n" "$d/hook-client.cjs" {{event}}; exit 0 # claude-code-fleet fleet-git
