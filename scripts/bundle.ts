/**
 * Bundles the CLI (src/cli/index.ts) with the pure-JavaScript packages it uses into a few files
 * in dist/bundle/, which `npm start` and the `travel-rule-hub` command run. Loading ~600 small
 * module files (typebox alone is 373) was about a third of start-up; a few bundled files load in
 * a fraction of that. Type-checking stays with tsc; test/cli.test.ts runs a fresh bundle.
 *
 * Kept outside the bundle: PGlite, which reads its own WASM and data files at run time, and pg's
 * optional native binding (swagger-ui-dist's files are found with require.resolve at run time).
 * The bundle must live two directories below the project root, as every compiled module does, so
 * that paths such as `../../migrations/` resolve the same from both.
 */
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

export async function bundleCli(outdir: string): Promise<void> {
  rmSync(outdir, { recursive: true, force: true }); // chunk names change with their content
  await build({
    entryPoints: [new URL('../src/cli/index.ts', import.meta.url).pathname],
    outdir,
    bundle: true,
    // Keeps each command's `await import(...)` a separate chunk: `serve` opens the database
    // while the app's code loads, and no command loads another's code.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    external: ['@electric-sql/pglite', 'pg-native'],
    // The CommonJS packages call require(), which an ES module has to make for itself.
    banner: {
      js: "import { createRequire as __hubCreateRequire } from 'node:module';\nconst require = __hubCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await bundleCli(new URL('../dist/bundle/', import.meta.url).pathname);
}
