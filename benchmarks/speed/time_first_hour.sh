#!/usr/bin/env bash
# Time a new user's first commands, each in a fresh virtual environment, on a fresh clone of the
# repository: the README's two commands and its documentation command. Prints the load before
# each, then each command's wall, user and system time (GNU time). NOTES-install.md gives the figures.
#
# Usage: benchmarks/speed/time_first_hour.sh CLONE_DIR [WORK_DIR]
#   CLONE_DIR: a fresh `git clone` (no built kernel in it), with ../shared/traces beside it for the tests
#   WORK_DIR:  where the virtual environments and logs go (default: a new temporary folder)
set -euo pipefail
clone="$(cd "$1" && pwd)"
work="${2:-$(mktemp -d)}"
mkdir -p "$work"
step() {  # step NAME COMMAND: run COMMAND in a fresh venv, in the clone, under GNU time
    local name="$1" command="$2"
    python3 -m venv "$work/venv-$name"
    echo "$name: $(uptime)"
    (
        # shellcheck disable=SC1091
        source "$work/venv-$name/bin/activate"
        cd "$clone"
        /usr/bin/time -v bash -c "$command" >"$work/$name.log" 2>&1
    )
    grep -E "Elapsed|User time|System time|Exit status" "$work/$name.log" | sed "s/^/$name: /"
}
step install 'pip install -q . && backfill simulate'
step tests 'pip install -q -e ".[test]" && python -m pytest -q'
step docs 'pip install -q ".[docs]" && mkdocs build --strict'
echo "logs in $work"
