import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { register } from 'prom-client';
import YAML from 'yaml';
import { DEFAULT_METRIC_NAMES, EXPORTER_METRIC_NAMES, initMetrics, METRIC_NAMES, metricsText, routeLabel, routeLabelOf } from './metrics.js';

const deployFile = (name: string) => readFileSync(new URL(`../../../../../deploy/observability/${name}`, import.meta.url), 'utf8');

/** The metric names a PromQL expression reads: selectors (a name before `{` or `[`) and the project's own prefixes anywhere. */
function metricNamesIn(expr: string): string[] {
  const names = new Set<string>();
  for (const m of expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*[{[]/g)) names.add(m[1]!);
  for (const m of expr.matchAll(/\b((?:verity|process|nodejs)_[a-zA-Z0-9_]+)/g)) names.add(m[1]!);
  return [...names];
}

/** A histogram's series name back to its metric (`_bucket`, `_count`, `_sum`). */
function metricOf(series: string): string {
  const known = new Set<string>([...METRIC_NAMES, ...DEFAULT_METRIC_NAMES]);
  if (known.has(series)) return series;
  const base = series.replace(/_(bucket|count|sum)$/, '');
  return known.has(base) ? base : series;
}

describe('metrics', () => {
  it('every agreed name is registered, and the process defaults the dashboard uses are produced', async () => {
    initMetrics('unit', 'eu');
    const registered = new Set(register.getMetricsAsArray().map((m) => m.name));
    for (const n of METRIC_NAMES) assert.ok(registered.has(n), `${n} registered`);
    const text = (await metricsText()).body;
    for (const n of DEFAULT_METRIC_NAMES) assert.match(text, new RegExp(`^${n}(\\{| )`, 'm'), `${n} produced`);
    assert.match(text, /^process_cpu_seconds_total\{service="unit",region="eu"\} /m, 'every series says its service and its region');
  });

  it('names an internal route by its pattern with each parameter as :param', () => {
    assert.equal(routeLabelOf(/^\/sessions\/([^/]*)\/images\/([^/]*)$/), '/sessions/:param/images/:param');
    assert.equal(routeLabelOf(/^\/captures\/([^/]*)\/images\/([^/]*)$/), '/captures/:param/images/:param');
    assert.equal(routeLabelOf(/^\/scan$/), '/scan');
    assert.equal(routeLabelOf(/^\/a\/((?:x|y)+)$/), '/a/:param');
  });

  it('names a gateway request by its route template, or unmatched: never the raw path', () => {
    assert.equal(routeLabel('/v1/sessions/:id'), '/v1/sessions/:id');
    assert.equal(routeLabel(undefined), 'unmatched');
    assert.equal(routeLabel(''), 'unmatched');
  });
});

/** A metric the code registers, prom-client's defaults, or one of the data services' exporters. */
const known = (m: string) => [METRIC_NAMES, DEFAULT_METRIC_NAMES, EXPORTER_METRIC_NAMES].some((names) => (names as readonly string[]).includes(m));

describe('dashboard and alerts (deploy/observability)', () => {
  it('the dashboard reads only metrics the code registers, and covers the golden signals and the asynchronous work', () => {
    const dash = JSON.parse(deployFile('grafana-dashboard.json')) as { panels: Array<{ title: string; targets?: Array<{ expr: string }> }> };
    const exprs = dash.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    assert.ok(exprs.length > 10);
    const used = new Set<string>();
    for (const e of exprs) {
      for (const n of metricNamesIn(e)) {
        const m = metricOf(n);
        assert.ok(known(m), `dashboard: "${n}" in ${e} is not a registered metric`);
        used.add(m);
      }
    }
    for (const m of ['verity_http_requests_total', 'verity_rpc_requests_total', 'verity_http_request_duration_seconds', 'verity_webhook_deliveries_total', 'verity_outbox_lag_seconds', 'verity_stream_consumer_pending', 'verity_reading_pool_busy', 'verity_queue_depth']) {
      assert.ok(used.has(m), `the dashboard shows ${m}`);
    }
    // one dashboard for both regions: a region variable, every series filtered by it and kept apart by region
    const variables = (JSON.parse(deployFile('grafana-dashboard.json')) as { templating: { list: Array<{ name: string }> } }).templating.list.map((v) => v.name);
    assert.ok(variables.includes('region'), 'a region variable');
    for (const e of exprs) {
      for (const n of metricNamesIn(e)) assert.ok(e.includes(`${n}{region=~"$region"`), `dashboard: ${n} filtered by $region in ${e}`);
      for (const by of e.matchAll(/\b(?:sum|max|count) by \(([^)]*)\)/g)) assert.match(by[1]!, /\bregion\b/, `dashboard: by (${by[1]}) keeps regions apart in ${e}`);
      assert.doesNotMatch(e, /\b(?:sum|max|count)\(/, `dashboard: an aggregation without by (region) in ${e}`);
    }
  });

  it('every alert reads only metrics the code registers and says what to do', () => {
    const rule = YAML.parse(deployFile('prometheus-rules.yaml')) as {
      apiVersion: string;
      kind: string;
      spec: { groups: Array<{ rules: Array<{ alert: string; expr: string; annotations: { summary: string; description: string } }> }> };
    };
    assert.equal(rule.apiVersion, 'monitoring.coreos.com/v1');
    assert.equal(rule.kind, 'PrometheusRule');
    const rules = rule.spec.groups.flatMap((g) => g.rules);
    assert.ok(rules.length >= 8);
    const used = new Set<string>();
    for (const r of rules) {
      assert.ok(r.annotations.summary && r.annotations.description.length > 80, `${r.alert}: a summary and a runbook description`);
      // per region: every aggregation keeps the region, and the summary names it
      for (const by of r.expr.matchAll(/\b(?:sum|max|count) by \(([^)]*)\)/g)) assert.match(by[1]!, /\bregion\b/, `${r.alert}: by (${by[1]}) keeps regions apart`);
      assert.doesNotMatch(r.expr, /\b(?:sum|max|count)\s*\(/, `${r.alert}: an aggregation without by (region)`);
      assert.ok(r.annotations.summary.startsWith('{{ $labels.region }}: '), `${r.alert}: the summary names the region`);
      for (const n of metricNamesIn(r.expr)) {
        const m = metricOf(n);
        assert.ok(known(m), `${r.alert}: "${n}" is not a registered metric`);
        used.add(m);
      }
    }
    for (const m of ['verity_webhook_deliveries_total', 'verity_outbox_lag_seconds', 'verity_stream_consumer_pending', 'verity_reading_pool_busy', 'verity_queue_depth', 'verity_rpc_requests_total']) {
      assert.ok(used.has(m), `an alert on ${m}`);
    }
  });
});

describe('autoscalers (deploy/base)', () => {
  it('every HorizontalPodAutoscaler scales on CPU or on a metric the code registers', () => {
    const dir = new URL('../../../../../deploy/base/', import.meta.url);
    const hpas = readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .flatMap((f) => YAML.parseAllDocuments(readFileSync(new URL(f, dir), 'utf8')).map((d) => d.toJS() as { kind?: string; metadata: { name: string }; spec: { metrics: HpaMetric[] } }))
      .filter((o) => o?.kind === 'HorizontalPodAutoscaler');
    assert.ok(hpas.length >= 7, `${hpas.length} autoscalers`);
    for (const h of hpas) {
      for (const m of h.spec.metrics) {
        if (m.type === 'Resource') continue;
        const name = (m.pods ?? m.external ?? m.object)?.metric.name;
        assert.ok(name && (METRIC_NAMES as readonly string[]).includes(name), `${h.metadata.name}: "${name}" is not a registered metric`);
      }
    }
  });
});

interface HpaMetric {
  type: string;
  pods?: { metric: { name: string } };
  external?: { metric: { name: string } };
  object?: { metric: { name: string } };
}
