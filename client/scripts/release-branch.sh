#!/usr/bin/env bash
# Commits the client as it is at a revision (default HEAD) onto a branch whose root IS the package
# (default branch name: client), with its generated src/schema.ts — so that another project can
# depend on it by git URL: npm cannot install a package from a subdirectory of a repository
# (npm/cli#528). Push the branch (or a tag on it) where your projects can reach it:
#   npm install "git+https://git.example.com/coupons.git#client"   (or #client-v0.1.0)
# Each run adds one commit on top of the branch (a fast-forward: pinned commits stay reachable).
# The working tree and the current branch are not touched (the work happens in a temporary
# worktree). Usage: client/scripts/release-branch.sh [BRANCH] [REVISION]
set -euo pipefail
branch=${1:-client}
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
rev=$(git -C "$repo" rev-parse --verify "${2:-HEAD}^{commit}")
work=$(mktemp -d)
tree="$work/client" # ../openapi.yaml beside it, as in the repository: the build generates from it
cleanup() {
  git -C "$repo" worktree remove --force "$tree" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

if git -C "$repo" show-ref --verify --quiet "refs/heads/$branch"; then
  git -C "$repo" worktree add -q "$tree" "$branch"
else
  git -C "$repo" worktree add -q --detach "$tree" "$rev"
  git -C "$tree" checkout -q --orphan "$branch"
fi
git -C "$tree" rm -rfq --ignore-unmatch -- .
git -C "$tree" clean -fdxq
git -C "$repo" archive "$rev" client | tar -x -C "$work"
git -C "$repo" show "$rev:openapi.yaml" >"$work/openapi.yaml"
# The generated schema is what the branch needs (its installs compile dist/ from it): generated with
# the checkout's own build tools when its `npm install` was run (the root's install puts the client's
# generator in client/node_modules/ or node_modules/), else with the client's, installed in the tree.
tools=
for bin in "$repo/client/node_modules/.bin" "$repo/node_modules/.bin"; do
  if [ -x "$bin/openapi-typescript" ]; then tools=$bin && break; fi
done
{
  if [ -z "$tools" ]; then
    (cd "$tree" && npm install --no-package-lock --include=dev --ignore-scripts --no-audit --no-fund) && tools="$tree/node_modules/.bin"
  fi
  (cd "$tree" && PATH="$tools:$PATH" npm run generate)
} >"$work/build.log" 2>&1 || {
  cat "$work/build.log" >&2
  echo "release-branch: the client's schema could not be generated at $rev" >&2
  exit 1
}
printf 'node_modules/\ndist/\n' >"$tree/.gitignore"
git -C "$tree" add -A
git -C "$tree" add -f src/schema.ts
if git -C "$tree" rev-parse -q --verify HEAD >/dev/null && git -C "$tree" diff --cached --quiet; then
  echo "release-branch: $branch already holds the client of ${rev:0:12}" >&2
else
  git -C "$tree" -c user.name="${GIT_AUTHOR_NAME:-coupons release}" -c user.email="${GIT_AUTHOR_EMAIL:-release@coupons.invalid}" \
    commit -qm "@coupons/client $(node -p "require('$tree/package.json').version") from ${rev:0:12}"
fi
echo "$branch $(git -C "$repo" rev-parse "refs/heads/$branch")"
