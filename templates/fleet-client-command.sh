[ -f {{client}} ] && command -v node >/dev/null 2>&1 && {{hint}}={{event}} exec node {{client}} --tool copilot; exit 0 # claude-code-fleet
