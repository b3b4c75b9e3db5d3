import { applyDecorators, HttpCode, RequestMapping, RequestMethod, SetMetadata, type Type } from '@nestjs/common';
import { routeTableProblems, type RouteAccess, type RouteDeclaration, type RouteTable } from '@verity/api-schema';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** `METHOD /path/:param`, as the router reports the matched route. */
export type RouteKey = `${Method} /${string}`;

const DECLARATION = Symbol('verity:route');

/**
 * Declares a route of the gateway on its handler, once: method and path, who may call it (an API key's scope and
 * rate class, a capture client secret, or anyone) and how the API reference describes it. The access check, the
 * OpenAPI document and the tests' route matrices all read these declarations; nothing else lists routes.
 *
 * Replaces Nest's `@Get`/`@Post`… (the controller takes no path prefix) and `@HttpCode` (the success status).
 */
export function Route(key: RouteKey, declaration: RouteDeclaration): MethodDecorator {
  const [method, path] = key.split(' ') as [Method, string];
  const status = declaration.success.status;
  return applyDecorators(
    RequestMapping({ method: RequestMethod[method], path }),
    ...(status === (method === 'POST' ? 201 : 200) ? [] : [HttpCode(status)]),
    SetMetadata(DECLARATION, { key, declaration }),
  );
}

/** The routes declared (`@Route`) on the handlers of `controllers`; throws on a table that could not be served as declared. */
export function routeTable(controllers: readonly Type[]): RouteTable {
  const table: RouteTable = {};
  for (const controller of controllers) {
    for (const name of Object.getOwnPropertyNames(controller.prototype)) {
      const handler = (controller.prototype as Record<string, unknown>)[name];
      if (typeof handler !== 'function') continue;
      const found = Reflect.getMetadata(DECLARATION, handler) as { key: string; declaration: RouteDeclaration } | undefined;
      if (!found) continue;
      if (table[found.key]) throw new Error(`${found.key} is declared twice`);
      table[found.key] = found.declaration;
    }
  }
  const problems = routeTableProblems(table);
  if (problems.length) throw new Error(`the gateway's routes are declared wrongly:\n${problems.join('\n')}`);
  return table;
}

/** The gateway's route table, for the hooks that decide by the matched route (access, body parsers, idempotency). */
export class Routes {
  constructor(readonly table: RouteTable) {}

  static of(controllers: readonly Type[]): Routes {
    return new Routes(routeTable(controllers));
  }

  /** The declared access of the matched route (`req.method`, `req.routeOptions.url`); undefined for an undeclared one. */
  access(method: string, url: string | undefined): RouteAccess | undefined {
    return url === undefined ? undefined : this.table[`${method} ${url}`]?.access;
  }

  /** `METHOD /path/:param` of every route whose body is of this kind. */
  withBody(kind: 'multipart' | 'image'): Set<string> {
    return new Set(Object.entries(this.table).filter(([, r]) => r.body?.kind === kind).map(([k]) => k));
  }

  /** Paths of the POST routes whose body is streamed, never kept (their Idempotency-Key is checked, not honoured). */
  streamedPosts(): Set<string> {
    return new Set(Object.entries(this.table).filter(([k, r]) => k.startsWith('POST ') && r.body?.streamed).map(([k]) => k.slice(5)));
  }
}
