import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { TraceState, W3CTraceContextPropagator } from '@opentelemetry/core';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { REQUEST_ID_HEADER } from '@verity/contracts';
import { SamplingDecision } from '@opentelemetry/sdk-trace';
import { z } from 'zod';
import { extractTraceHeaders, injectTraceHeaders, samplerOf, tracingEnv } from './tracing.js';

const w3c = new W3CTraceContextPropagator();
const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';

describe('trace context in NATS headers', () => {
  it('writes traceparent and tracestate next to the request id, and reads them back', () => {
    const ctx = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: TraceFlags.SAMPLED, traceState: new TraceState('vendor=abc') });
    const h = natsHeaders();
    h.set(REQUEST_ID_HEADER, 'req_1');
    injectTraceHeaders(h, ctx, w3c);
    assert.equal(h.get('traceparent'), `00-${traceId}-${spanId}-01`);
    assert.equal(h.get('tracestate'), 'vendor=abc');
    assert.equal(h.get(REQUEST_ID_HEADER), 'req_1');

    const back = trace.getSpanContext(extractTraceHeaders(h, w3c));
    assert.equal(back?.traceId, traceId);
    assert.equal(back?.spanId, spanId);
    assert.equal(back?.traceFlags, TraceFlags.SAMPLED);
    assert.equal(back?.isRemote, true);
    assert.equal(back?.traceState?.get('vendor'), 'abc');
  });

  it('a message without a trace, or with a malformed one, starts none', () => {
    assert.equal(trace.getSpanContext(extractTraceHeaders(undefined, w3c)), undefined);
    const h = natsHeaders();
    h.set(REQUEST_ID_HEADER, 'req_2');
    assert.equal(trace.getSpanContext(extractTraceHeaders(h, w3c)), undefined);
    h.set('traceparent', '00-not-a-trace-01');
    assert.equal(trace.getSpanContext(extractTraceHeaders(h, w3c)), undefined);
  });

  it('writes nothing when no span is active', () => {
    const h = natsHeaders();
    injectTraceHeaders(h, ROOT_CONTEXT, w3c);
    assert.equal(h.has('traceparent'), false);
  });
});

describe('OTEL_TRACES_SAMPLER', () => {
  const cfgOf = (env: Record<string, string>) => z.object(tracingEnv).parse(env);
  /** How many of 1,000 new traces (no parent) the sampler of `env` keeps. */
  const kept = (env: Record<string, string>, parent = ROOT_CONTEXT) => {
    const sampler = samplerOf(cfgOf(env));
    let n = 0;
    for (let i = 0; i < 1000; i++) {
      if (sampler.shouldSample(parent, randomBytes(16).toString('hex'), 'span', 0, {}, []).decision === SamplingDecision.RECORD_AND_SAMPLED) n++;
    }
    return n;
  };
  const parentWith = (flags: TraceFlags) => trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: flags, isRemote: true });

  it('keeps every trace by default, and none with always_off', () => {
    assert.equal(kept({}), 1000);
    assert.equal(kept({ OTEL_TRACES_SAMPLER: 'always_off' }), 0);
  });

  it('keeps about the share OTEL_TRACES_SAMPLER_ARG says of new traces, and follows a caller that kept or dropped its trace', () => {
    const share = kept({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' });
    assert.ok(share > 150 && share < 350, `${share} of 1000 kept at 0.25`);
    assert.equal(kept({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }, parentWith(TraceFlags.SAMPLED)), 1000);
    assert.equal(kept({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' }, parentWith(TraceFlags.NONE)), 0);
    assert.equal(kept({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }, parentWith(TraceFlags.SAMPLED)), 0);
  });

  it('refuses a sampler it does not know, or a share outside 0 to 1, rather than ignoring it', () => {
    assert.throws(() => cfgOf({ OTEL_TRACES_SAMPLER: 'jaeger_remote' }));
    assert.throws(() => cfgOf({ OTEL_TRACES_SAMPLER_ARG: '1.5' }));
  });
});
