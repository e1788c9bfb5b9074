// `npm pack` / `npm publish` ship the lockfile's exact tree as npm-shrinkwrap.json, so
// `npx tributary` installs the versions CI tested (a dependency's package-lock.json is
// ignored by npm; its npm-shrinkwrap.json is honoured). `prepack` writes it, `postpack`
// removes it again: the repository keeps one lockfile, package-lock.json.
import { copyFileSync, rmSync } from 'node:fs';

if (process.argv[2] === '--remove') rmSync('npm-shrinkwrap.json', { force: true });
else copyFileSync('package-lock.json', 'npm-shrinkwrap.json');
