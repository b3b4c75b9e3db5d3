import 'reflect-metadata';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Module, RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Validator } from '@seriousme/openapi-schema-validator';
import { REQUEST_COMPONENTS, splitRouteKey, type OpenApiDocument } from '@verity/api-schema';
import { ERROR_CATALOGUE, isErrorCode } from '@verity/errors';
import type { Logger } from '@verity/platform';
import type { FastifyInstance } from 'fastify';
import { routeTable } from '../access/routes.js';
import { GATEWAY_CONTROLLERS } from '../app.module.js';
import { EnvelopeFilter } from '../http/envelope.filter.js';
import { generate } from './build.js';
import { DOCUMENT_PATH, REFERENCE_PATH } from './document.js';
import { OpenApiController } from './openapi.controller.js';
import { ReferenceController } from './reference.controller.js';

const committed = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as OpenApiDocument;
const fresh = generate();
const ROUTES = routeTable(GATEWAY_CONTROLLERS);

/**
 * Routes of the gateway that the document leaves out on purpose: pages for people (`/docs`, `/docs/…`: the
 * reference itself and the error catalogue) and the capture page's own script, stylesheet and pictures.
 */
const UNDESCRIBED = [/^GET \/docs(\/|$)/, /^GET \/verify\/assets\//];

/** Every route the gateway's controllers declare, as `METHOD /path/:param`, read from Nest's metadata. */
function controllerRoutes(): string[] {
  const out: string[] = [];
  for (const controller of GATEWAY_CONTROLLERS as Type[]) {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    for (const name of Object.getOwnPropertyNames(controller.prototype)) {
      const handler = (controller.prototype as Record<string, unknown>)[name];
      if (typeof handler !== 'function' || name === 'constructor') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) continue;
      const paths = [Reflect.getMetadata(PATH_METADATA, handler) as string | string[]].flat();
      for (const p of paths) {
        const full = `/${[base, p].map((s) => s.replace(/^\/+|\/+$/g, '')).filter(Boolean).join('/')}`;
        out.push(`${RequestMethod[method]} ${full}`);
      }
    }
  }
  return out.sort();
}

function documentedRoutes(doc: OpenApiDocument): string[] {
  const out: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) for (const method of Object.keys(item)) out.push(`${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`);
  return out.sort();
}

describe('the OpenAPI document (GET /v1/openapi.json)', () => {
  it('is what the code generates now (else: npm run openapi, and commit apps/gateway/openapi/)', () => {
    assert.equal(readFileSync(DOCUMENT_PATH, 'utf8'), fresh.json, 'apps/gateway/openapi/openapi.json is stale: run npm run openapi');
    assert.equal(readFileSync(REFERENCE_PATH, 'utf8'), fresh.html, 'apps/gateway/openapi/reference.html is stale: run npm run openapi');
  });

  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(committed);
    assert.equal(validator.version, '3.1');
    assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
  });

  it('describes every route of the gateway, and no route that does not exist', () => {
    const served = controllerRoutes().filter((r) => !UNDESCRIBED.some((re) => re.test(r)));
    const described = documentedRoutes(committed);
    assert.deepEqual(served.filter((r) => !described.includes(r)), [], 'routes without a description');
    assert.deepEqual(described.filter((r) => !served.includes(r)), [], 'descriptions of routes that do not exist');
    assert.ok(served.length >= 29, `${served.length} routes`);
  });

  it('gives every declared route its scope, rate class and security scheme', () => {
    for (const [key, { access }] of Object.entries(ROUTES)) {
      const { method, path } = splitRouteKey(key);
      const op = committed.paths[path]?.[method.toLowerCase()] as Record<string, unknown> | undefined;
      assert.ok(op, `${key} is not described`);
      if (access.auth === 'capture') {
        assert.deepEqual([op['security'], op['x-verity-rate-class']], [[{ clientSecret: [] }], 'capture'], key);
      } else if (access.auth === 'public') {
        assert.deepEqual([op['security'], op['x-verity-rate-class'], op['x-verity-ip-limit']], [[], undefined, access.ipLimited], key);
      } else {
        assert.deepEqual(op['security'], [{ apiKey: access.scope === null ? [] : [access.scope] }], key);
        assert.equal(op['x-verity-scope'], access.scope, key);
        assert.equal(op['x-verity-rate-class'], access.rateClass, key);
      }
      if (method === 'POST' && path.startsWith('/v1/')) assert.ok((op['parameters'] as Array<{ $ref?: string }>).some((p) => p.$ref === '#/components/parameters/IdempotencyKey'), `${key}: Idempotency-Key`);
    }
  });

  it('makes public only GET /v1/openapi.json among the /v1 routes: another public route is a deliberate change here', () => {
    assert.deepEqual(Object.entries(ROUTES).filter(([k, r]) => k.includes(' /v1/') && r.access.auth === 'public').map(([k]) => k), ['GET /v1/openapi.json']);
  });

  it('gives every JSON body an example its schema accepts (the isolation tests send it)', () => {
    for (const [key, route] of Object.entries(ROUTES)) {
      const body = route.body;
      if (!body || (body.kind ?? 'json') !== 'json') continue;
      assert.ok(body.example, `${key}: no example`);
      const parsed = REQUEST_COMPONENTS[body.component!].safeParse(body.example);
      assert.ok(parsed.success, `${key}: ${JSON.stringify(parsed.error?.issues)}`);
    }
  });

  it('lists, per error status, codes of the catalogue with that status, in the envelope schema', () => {
    let responses = 0;
    for (const item of Object.values(committed.paths)) {
      for (const op of Object.values(item)) {
        for (const [status, res] of Object.entries(op['responses'] as Record<string, Record<string, unknown>>)) {
          const codes = res['x-verity-error-codes'] as string[] | undefined;
          if (!codes) continue;
          responses++;
          for (const code of codes) {
            assert.ok(isErrorCode(code), code);
            assert.equal(String(ERROR_CATALOGUE[code].status), status, code);
          }
          const schema = (res['content'] as Record<string, { schema: { allOf: Array<Record<string, unknown>> } }>)['application/json']!.schema;
          assert.equal(schema.allOf[0]!['$ref'], '#/components/schemas/Error');
          assert.deepEqual((schema.allOf[1] as { properties: { error: { properties: { code: { enum: string[] } } } } }).properties.error.properties.code.enum, codes);
        }
      }
    }
    assert.ok(responses > 100, `${responses} error responses`);
  });

  it('resolves every $ref', () => {
    const text = JSON.stringify(committed);
    for (const [, ref] of text.matchAll(/"\$ref":"([^"]+)"/g)) {
      const target = ref!
        .slice(2)
        .split('/')
        .reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], committed);
      assert.ok(target, ref);
    }
  });
});

describe('the API reference (GET /docs)', () => {
  const html = fresh.html;

  it('has an anchor for every route, with its scope and rate class', () => {
    for (const item of Object.values(committed.paths)) {
      for (const op of Object.values(item)) {
        const id = op['operationId'] as string;
        const at = html.indexOf(`<section class="op" id="${id}">`);
        assert.ok(at > 0, id);
        const section = html.slice(at, html.indexOf('</section>', at));
        if (op['x-verity-scope']) assert.ok(section.includes(`<code>${op['x-verity-scope'] as string}</code>`), `${id}: scope`);
        if (op['x-verity-rate-class']) assert.ok(section.includes(`<code>${op['x-verity-rate-class'] as string}</code>`), `${id}: rate class`);
      }
    }
  });

  it('links every error code it names to the error catalogue page', () => {
    const named = new Set<string>();
    for (const item of Object.values(committed.paths)) {
      for (const op of Object.values(item)) for (const res of Object.values(op['responses'] as Record<string, { 'x-verity-error-codes'?: string[] }>)) for (const c of res['x-verity-error-codes'] ?? []) named.add(c);
    }
    assert.ok(named.size >= 20, `${named.size} codes`);
    for (const code of named) assert.ok(html.includes(`<a href="/docs/errors#${code}">`), code);
  });

  it('loads nothing from another origin and runs no script', () => {
    assert.doesNotMatch(html, /<script|<link|<img|<iframe|@import|url\(/i);
    for (const [, href] of html.matchAll(/href="([^"]*)"/g)) assert.match(href!, /^(#|\/)/, href);
  });
});

describe('the routes that serve them', () => {
  let app: NestFastifyApplication;
  let fastify: FastifyInstance;
  const log = { error: () => undefined, warn: () => undefined, info: () => undefined } as unknown as Logger;

  @Module({ controllers: [OpenApiController, ReferenceController] })
  class TestModule {}

  before(async () => {
    app = await NestFactory.create<NestFastifyApplication>(TestModule, new FastifyAdapter(), { logger: false });
    fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
    fastify.decorateRequest('requestId', '');
    fastify.addHook('onRequest', async (req) => {
      req.requestId = 'req_test';
    });
    app.useGlobalFilters(new EnvelopeFilter(log, 'http://127.0.0.1:8080/docs'));
    await app.init();
    await fastify.ready();
  });
  after(() => app?.close());

  it('GET /v1/openapi.json: the document, compact, cacheable, with a validator', async () => {
    const res = await fastify.inject({ method: 'GET', url: '/v1/openapi.json' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.deepEqual(JSON.parse(res.body), committed);
    assert.ok(res.body.length < readFileSync(DOCUMENT_PATH).length);
    const again = await fastify.inject({ method: 'GET', url: '/v1/openapi.json', headers: { 'if-none-match': String(res.headers.etag) } });
    assert.equal(again.statusCode, 304);
  });

  it('GET /docs and /docs/: the page, under a policy that allows its inline stylesheet only', async () => {
    for (const url of ['/docs', '/docs/']) {
      const res = await fastify.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.equal(res.body, fresh.html);
      assert.match(String(res.headers['content-security-policy']), /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; /);
    }
    const other = await fastify.inject({ method: 'GET', url: '/docs/nope%3Cx%3E' });
    assert.equal(other.statusCode, 404);
    assert.equal(JSON.parse(other.body).error.code, 'route_not_found');
    assert.ok(!other.body.includes('nope'));
  });
});
