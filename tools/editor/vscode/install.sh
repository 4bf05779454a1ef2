#!/usr/bin/env bash
# Installs the rop extension into VS Code's extension folder (docs/editor.md): copies this folder
# with the grammar it links to, and fetches its one dependency (vscode-languageclient) with npm.
#   tools/editor/vscode/install.sh [EXTENSIONS_DIR]    default: ~/.vscode/extensions
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$here/package.json")
dest="${1:-$HOME/.vscode/extensions}/rop.rop-lang-$version"
command -v npm >/dev/null || {
    echo "install.sh: npm not found (Debian: apt-get install npm)"
    exit 1
}
rm -rf "$dest"
mkdir -p "$dest"
# -L: the grammar is a link to tools/editor/rop.tmLanguage.json; the copy holds the file.
cp -RL "$here/package.json" "$here/extension.js" "$here/language-configuration.json" \
    "$here/syntaxes" "$dest/"
(cd "$dest" && npm install --omit=dev --no-audit --no-fund --silent) || {
    echo "install.sh: npm could not fetch vscode-languageclient into $dest (offline?);"
    echo "run 'npm install --omit=dev' there when the registry is reachable"
    exit 1
}
echo "installed $dest; restart VS Code (ropc must be on PATH, or set rop.server.path)"
