import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider, type Sampler } from '@opentelemetry/sdk-trace';
import { z } from 'zod';

/**
 * Traces (docs/observability.md): one trace follows a request from the gateway across NATS (W3C `traceparent`
 * and `tracestate` in the message headers, next to the request id) and internal HTTP to every service it
 * touches, exported over OTLP/HTTP (JSON) when `OTEL_EXPORTER_OTLP_ENDPOINT` is set. Unset, nothing is
 * installed: no span is made, no header written, the choke points check one boolean.
 */
export const tracingEnv = {
  /** OTLP/HTTP base URL of the collector (`/v1/traces` is appended); unset: no tracing at all. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /** Only OTLP over HTTP with JSON bodies is sent; another value is refused rather than silently ignored. */
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(['http/json']).optional(),
  /** The `service.name` of this process's spans; defaults to the service's own name. */
  OTEL_SERVICE_NAME: z.string().min(1).max(100).optional(),
  /** Longest a finished span waits in memory before it is sent (spans leave in batches). */
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(10).max(60_000).default(5000),
  /**
   * Which traces are kept (the OpenTelemetry names): `parentbased_always_on` (the default: every trace, and a caller's
   * decision followed), `parentbased_traceidratio` (a share of new traces, the callers' decisions followed),
   * `traceidratio`, `always_on`, `always_off`, `parentbased_always_off`.
   */
  OTEL_TRACES_SAMPLER: z
    .enum(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'])
    .default('parentbased_always_on'),
  /** The share of traces the `…traceidratio` samplers keep, 0 to 1. */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
};
export type TracingConfig = z.infer<z.ZodObject<typeof tracingEnv>>;

const TRACER = 'verity';
let provider: TracerProvider | null = null;
let enabled = false;

/** Whether spans are made and exported (`OTEL_EXPORTER_OTLP_ENDPOINT` set). */
export function tracingEnabled(): boolean {
  return enabled;
}

/**
 * Installs the exporter, the context manager (AsyncLocalStorage) and the W3C propagator when an endpoint is
 * configured; once per process. `service` names the process when `OTEL_SERVICE_NAME` does not.
 */
export function initTracing(service: string, region: string, cfg: Partial<TracingConfig>): void {
  if (provider || !cfg.OTEL_EXPORTER_OTLP_ENDPOINT) return;
  const exporter = new OTLPTraceExporter({ url: `${cfg.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` });
  provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': cfg.OTEL_SERVICE_NAME ?? service, 'service.namespace': 'verity', 'cloud.region': region, 'verity.region': region }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: cfg.OTEL_BSP_SCHEDULE_DELAY ?? 5000 })],
    sampler: samplerOf(cfg),
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  enabled = true;
}

/**
 * The sampler `OTEL_TRACES_SAMPLER` names. A trace's decision is made where it starts (the gateway, or a service's
 * own background work) and travels in `traceparent`; the parent-based samplers follow it, so a kept trace is whole.
 */
export function samplerOf(cfg: Partial<Pick<TracingConfig, 'OTEL_TRACES_SAMPLER' | 'OTEL_TRACES_SAMPLER_ARG'>>): Sampler {
  const ratio = new TraceIdRatioBasedSampler(cfg.OTEL_TRACES_SAMPLER_ARG ?? 1);
  switch (cfg.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on') {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** Sends the spans still waiting (at shutdown). */
export async function shutdownTracing(): Promise<void> {
  if (!provider) return;
  await provider.shutdown().catch(() => undefined);
}

/** Headers as NATS carries them (`MsgHdrs`) or as a plain record (HTTP). */
interface HeaderBag {
  get(k: string): string;
  set(k: string, v: string): void;
  has(k: string): boolean;
}

const natsSetter: TextMapSetter<HeaderBag> = { set: (h, k, v) => h.set(k, v) };
const natsGetter: TextMapGetter<HeaderBag | undefined> = {
  get: (h, k) => (h?.has(k) ? h.get(k) : undefined),
  keys: () => ['traceparent', 'tracestate'],
};
const recordSetter: TextMapSetter<Record<string, string>> = { set: (h, k, v) => (h[k] = v) };
const recordGetter: TextMapGetter<Record<string, string | string[] | undefined>> = {
  get: (h, k) => h[k],
  keys: (h) => Object.keys(h),
};

/** Writes the active span's `traceparent` (and `tracestate`) into NATS message headers. */
export function injectTraceHeaders(headers: HeaderBag, ctx: Context = context.active(), propagator: TextMapPropagator = propagation): void {
  propagator.inject(ctx, headers, natsSetter);
}

/** The context a NATS message's `traceparent` carries (the root context when it has none). */
export function extractTraceHeaders(headers: HeaderBag | undefined, propagator: TextMapPropagator = propagation): Context {
  return propagator.extract(ROOT_CONTEXT, headers, natsGetter);
}

/** The active span's `traceparent` (and `tracestate`) as HTTP headers; empty when tracing is off. */
export function traceHttpHeaders(ctx: Context = context.active()): Record<string, string> {
  const h: Record<string, string> = {};
  if (enabled) propagation.inject(ctx, h, recordSetter);
  return h;
}

/** The context an HTTP request's `traceparent` carries. */
export function extractHttpTrace(headers: Record<string, string | string[] | undefined>): Context {
  return propagation.extract(ROOT_CONTEXT, headers, recordGetter);
}

export { SpanKind };

/**
 * Runs `fn` in a new span (child of `parent`, else of the active span), ended when `fn` settles and marked as
 * an error when it throws; when tracing is off, just runs `fn`.
 */
export function inSpan<T>(name: string, kind: SpanKind, attributes: Attributes, fn: (span: Span | null) => Promise<T>, parent?: Context): Promise<T> {
  if (!enabled) return fn(null);
  const ctx = parent ?? context.active();
  const span = trace.getTracer(TRACER).startSpan(name, { kind, attributes }, ctx);
  return context.with(trace.setSpan(ctx, span), async () => {
    try {
      return await fn(span);
    } catch (e) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (e as { code?: string })?.code ?? (e as Error)?.name });
      throw e;
    } finally {
      span.end();
    }
  });
}

/** Starts a span the caller ends (a request whose end comes from another callback); null when tracing is off. */
export function startSpan(name: string, kind: SpanKind, attributes: Attributes, parent: Context = context.active()): { span: Span; ctx: Context } | null {
  if (!enabled) return null;
  const span = trace.getTracer(TRACER).startSpan(name, { kind, attributes }, parent);
  return { span, ctx: trace.setSpan(parent, span) };
}

/** Runs `fn` with `ctx` active (synchronously, as a Fastify hook's `done`). */
export function withContext<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}

export function markError(span: Span, message?: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, ...(message ? { message } : {}) });
}

/** The active span's W3C `traceparent`, to store with work done later (a queued job); null when tracing is off. */
export function currentTraceparent(): string | null {
  return traceHttpHeaders().traceparent ?? null;
}

/** Runs `fn` in a span continuing the trace of a stored `traceparent` (see `currentTraceparent`); just `fn` when tracing is off. */
export function inStoredTrace<T>(traceparent: string | null, name: string, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  if (!enabled) return fn();
  const parent = traceparent ? extractHttpTrace({ traceparent }) : ROOT_CONTEXT;
  return inSpan(name, SpanKind.CONSUMER, attributes, fn, parent);
}
