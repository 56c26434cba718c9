/**
 * /docs: the OpenAPI document (/openapi.json) browsed in swagger-ui. The page and its scripts are
 * the swagger-ui-dist package's files, served as they are (only those the page loads; the package's
 * other files, its package.json and source maps included, are not served); only the start script is ours (it
 * points swagger-ui at /openapi.json instead of the package's demo API). Everything is static,
 * so start-up registers a directory and three routes and loads nothing else.
 * swagger-ui renders inline styles and data: images, so /docs has a policy of its own
 * (DOCS_CSP), looser than the dashboard's and applied only here.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import fastifyStatic from '@fastify/static';
import { cspHeader } from '../dashboard/routes.js';
import type { HubApp } from '../http/types.js';

/** swagger-ui's policy: same origin, plus the inline styles and data: images it renders. */
const DOCS_CSP = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

const PAGE = '/docs/static/index.html';

/** The package's files the page loads; nothing else of the package is served. */
const FILES = new Set([
  '/index.html',
  '/index.css',
  '/swagger-ui.css',
  '/swagger-ui-bundle.js',
  '/swagger-ui-standalone-preset.js',
  '/favicon-16x16.png',
  '/favicon-32x32.png',
]);

/** Loaded by the package's index.html; relative, so the page works behind a path prefix too. */
const START_SCRIPT = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '../../openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: false,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
};
`;

export async function docsRoutes(app: HubApp): Promise<void> {
  const assets = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const policy = cspHeader(DOCS_CSP);
  await app.register(async (docs) => {
    docs.addHook('onSend', async (_request, reply) => {
      reply.header('content-security-policy', policy);
    });
    const hidden = { schema: { hide: true }, config: { rateLimit: false } };
    docs.get('/docs', hidden, (_request, reply) => reply.redirect(PAGE));
    docs.get('/docs/', hidden, (_request, reply) => reply.redirect(PAGE));
    docs.get('/docs/static/swagger-initializer.js', hidden, (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').send(START_SCRIPT),
    );
    await docs.register(fastifyStatic, {
      root: assets,
      prefix: '/docs/static/',
      decorateReply: false,
      allowedPath: (path) => FILES.has(path),
    });
  });
}
