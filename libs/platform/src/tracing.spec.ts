import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { TraceState, W3CTraceContextPropagator } from '@opentelemetry/core';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { REQUEST_ID_HEADER } from '@verity/contracts';
import { extractTraceHeaders, injectTraceHeaders } from './tracing.js';

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
