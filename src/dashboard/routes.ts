/**
 * Serves the compliance dashboard (ui/, built by Vite into ui/dist) at /ui/, under a strict
 * Content-Security-Policy: everything from this origin only, no inline script or style, no
 * framing. The page is just another API client: it talks to /v1 with the typed client and
 * keeps the API key in session storage, so nothing here knows about keys.
 * /docs (swagger-ui, operations/docs.ts) needs inline styles and data: images, so it gets its
 * own, looser policy there.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import { AppError } from '../http/errors.js';
import type { HubApp } from '../http/types.js';

/** ui/dist, from src/dashboard (tsx) and dist/dashboard (compiled) alike. */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../ui/dist/', import.meta.url));

export const DASHBOARD_CSP = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'"],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

export async function dashboardRoutes(app: HubApp, dir = DASHBOARD_DIR) {
  // Encapsulated: helmet's headers apply to the dashboard's routes only, not to every API call.
  await app.register(async (ui) => {
    await ui.register(helmet, {
      global: true,
      contentSecurityPolicy: { useDefaults: false, directives: DASHBOARD_CSP },
      strictTransportSecurity: false,
      referrerPolicy: { policy: 'no-referrer' },
    });
    ui.get('/ui', { schema: { hide: true } }, (_request, reply) => reply.redirect('/ui/'));
    if (!existsSync(`${dir}index.html`)) {
      const notBuilt = async () => {
        throw new AppError('UNAVAILABLE', 'The dashboard is not built; run `npm run build`.');
      };
      ui.get('/ui/', { schema: { hide: true } }, notBuilt);
      ui.get('/ui/*', { schema: { hide: true } }, notBuilt);
      for (const page of LINK_PAGES) ui.get(page, { schema: { hide: true } }, notBuilt);
      return;
    }
    // The pages that e-mailed links open are the dashboard too; the page reads the token from the path.
    const page = readFileSync(`${dir}index.html`);
    for (const path of LINK_PAGES) {
      ui.get(path, { schema: { hide: true } }, (_request, reply) =>
        reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page),
      );
    }
    await ui.register(fastifyStatic, {
      root: dir,
      prefix: '/ui/',
      index: 'index.html',
      // Vite names assets by content hash: cache them for good, revalidate the page itself.
      cacheControl: false,
      setHeaders(reply, path) {
        reply.header(
          'cache-control',
          path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  });
}

/**
 * Public pages opened from e-mailed links: a NOTIFY claim link, an approved applicant's
 * credentials, a person's invitation (SPEC §17).
 */
const LINK_PAGES = ['/claim/:token', '/credentials/:token', '/invitation/:token'];

/** A policy as a Content-Security-Policy header value. */
export function cspHeader(directives: Record<string, string[]>): string {
  return Object.entries(directives)
    .map(([k, v]) => `${k} ${v.join(' ')}`)
    .join('; ');
}
