import { Inject, Injectable } from '@nestjs/common';
import type { EvaluateReply, Owner } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { isId } from '@verity/keys';
import { CONFIG } from '@verity/platform';
import { compileRules, type CompiledRuleSet, type EvaluationResult } from '@verity/screening-engine';
import { LRUCache } from 'lru-cache';
import { DEFAULT_RULESET_CACHE_SIZE, type ScreeningConfig } from '../config.js';
import { TemplatesRepository } from '../templates/templates.repository.js';
import { isVersionNumber } from '../templates/templates.service.js';
import { toEvaluationContext } from './evaluation-context.js';

/** A compiled rule set with what explains its outcome: each rule's priority (by position) and the threshold. */
export interface RuleSetOf {
  rules: CompiledRuleSet;
  priorities: number[];
  reviewThreshold: number;
}

export function toEvaluateReply(r: EvaluationResult, of: Pick<RuleSetOf, 'priorities' | 'reviewThreshold'>): EvaluateReply {
  if (r.status === 'errored') return { status: 'errored', reason: r.reason, key: r.key };
  return {
    status: 'ok',
    decision: r.decision,
    score: r.score,
    review_threshold: of.reviewThreshold,
    tags: r.tags,
    decline_floored: r.declineFloored,
    fired: r.fired.map((f) => ({ index: f.index, name: f.name, ruleType: f.ruleType, action: f.action, priority: of.priorities[f.index] ?? null, fields: f.fields })),
    trace: r.trace.map((t) => ({ index: t.index, name: t.name, fired: t.fired, fields: t.fields })),
  };
}

/**
 * Evaluates the screening rules of one pinned template version against one run. Versions are immutable,
 * so each (owner, template, version) is compiled once and kept in a bounded LRU; concurrent first calls
 * share one compilation. The owner is part of the key: another organization's id finds nothing.
 */
@Injectable()
export class EvaluationService {
  private readonly cache: LRUCache<string, Promise<RuleSetOf>>;
  private compilations = 0;

  constructor(
    private readonly repo: TemplatesRepository,
    @Inject(CONFIG) cfg: Partial<ScreeningConfig>,
  ) {
    this.cache = new LRUCache({ max: cfg.SCREENING_RULESET_CACHE_SIZE ?? DEFAULT_RULESET_CACHE_SIZE });
  }

  /** How many rule sets were compiled and how many are held (operations and tests). */
  stats(): { compilations: number; cached: number } {
    return { compilations: this.compilations, cached: this.cache.size };
  }

  /**
   * Drops the owner's compiled rule sets (its templates were deleted): a later evaluation of them loads them and
   * finds nothing. Only this process's cache: another replica keeps its copies until they are evicted.
   */
  forgetOwner(owner: Owner): number {
    const prefix = `${owner.org_id}/${owner.mode}/`;
    const keys = [...this.cache.keys()].filter((key) => key.startsWith(prefix));
    for (const key of keys) this.cache.delete(key);
    return keys.length;
  }

  async evaluate(owner: Owner, templateId: unknown, version: unknown, context: unknown): Promise<EvaluateReply> {
    if (!isId('workflowTemplate', templateId)) throw DomainError.notFound('template_id');
    if (!isVersionNumber(version)) throw DomainError.notFound('version');
    const ctx = toEvaluationContext(context);
    const set = await this.compiled(owner, templateId, version);
    return toEvaluateReply(set.rules.evaluate(ctx), set);
  }

  private compiled(owner: Owner, templateId: string, version: number): Promise<RuleSetOf> {
    const key = `${owner.org_id}/${owner.mode}/${templateId}/${version}`;
    let entry = this.cache.get(key);
    if (!entry) {
      entry = this.compile(owner, templateId, version);
      this.cache.set(key, entry);
      const settled = entry;
      // a failed load (unknown version, database away) is not remembered; a newer entry under the key stays
      settled.catch(() => {
        if (this.cache.peek(key) === settled) this.cache.delete(key);
      });
    }
    return entry;
  }

  private async compile(owner: Owner, templateId: string, version: number): Promise<RuleSetOf> {
    const row = await this.repo.findVersion(owner, templateId, version);
    if (!row) throw DomainError.notFound((await this.repo.find(owner, templateId)) ? 'version' : 'template_id');
    this.compilations += 1;
    const rules = compileRules(row.screening_rules, {
      deviceIntelligence: row.device_intelligence,
      templateMetadata: row.metadata,
      reviewThreshold: row.review_threshold,
    });
    // stored rules are normalized (priority defaulted), so each has one
    const priorities = (row.screening_rules as Array<{ priority?: number }>).map((r) => r.priority ?? 100);
    return { rules, priorities, reviewThreshold: row.review_threshold };
  }
}
