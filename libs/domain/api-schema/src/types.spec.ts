/**
 * The response schemas and the TypeScript interfaces of libs/domain/contracts are the same types: checked when this file
 * compiles (a difference is a build error naming the pair), so the document cannot drift from what services answer.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type {
  ActivityEntry,
  Applicant,
  Capture,
  CaptureImageStored,
  CaptureFrameStored,
  CaptureImageCheck,
  DataSubjectRequest,
  DsarArtifact,
  DomainEvent,
  DsarExport,
  EmailLogEntry,
  ErasureKeySet,
  Idv,
  IdScanResult,
  Page,
  Session,
  SessionEventData,
  SessionScreening,
  WebhookAttempt,
  WorkflowTemplate,
} from '@verity/contracts';
import type { ErrorEnvelope } from '@verity/errors';
import type { Condition, ScreeningRule } from '@verity/screening-engine';
import type { z } from 'zod';
import { applicant } from './applicants.js';
import type { page } from './common.js';
import {
  activityEntry,
  capture,
  captureImageStored,
  captureFrameStored,
  captureImageCheck,
  dataSubjectRequest,
  dsarArtifact,
  dsarExport,
  emailLogEntry,
  erasureKeySet,
  errorEnvelope,
  idScanResult,
  webhookAttempt,
  webhookEvent,
} from './resources.js';
import { idv, session, sessionScreening } from './sessions.js';
import { condition, screeningRule, workflowTemplate } from './templates.js';

/** True when A and B are the same type (not merely assignable either way). */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Out<S extends z.ZodType> = z.output<S>;

// each line fails to compile when the schema and the interface differ
const checks = {
  Applicant: true as Equals<Out<typeof applicant>, Applicant>,
  WorkflowTemplate: true as Equals<Omit<Out<typeof workflowTemplate>, 'screening_rules'>, Omit<WorkflowTemplate, 'screening_rules'>>,
  // the interface leaves rules `unknown[]`; the schema says what they are: the engine's ScreeningRule
  ScreeningRule: true as Equals<Out<typeof screeningRule>, ScreeningRule>,
  TemplateRules: true as Equals<Out<typeof workflowTemplate>['screening_rules'], ScreeningRule[]>,
  Condition: true as Equals<Out<typeof condition>, Condition>,
  Session: true as Equals<Out<typeof session>, Session>,
  Idv: true as Equals<Out<typeof idv>, Idv>,
  SessionScreening: true as Equals<Out<typeof sessionScreening>, SessionScreening>,
  SessionPage: true as Equals<Out<ReturnType<typeof page<typeof session>>>, Page<Session>>,
  WebhookAttempt: true as Equals<Out<typeof webhookAttempt>, WebhookAttempt>,
  WebhookEventData: true as Equals<Out<typeof webhookEvent>['data'], SessionEventData>,
  // the delivery body (apps/webhook-delivery signing.ts): the event's type, timestamp and data
  WebhookEvent: true as Equals<Out<typeof webhookEvent>, Pick<DomainEvent, 'type' | 'timestamp' | 'data'>>,
  IdScanResult: true as Equals<Out<typeof idScanResult>, IdScanResult>,
  Capture: true as Equals<Out<typeof capture>, Capture>,
  CaptureImageStored: true as Equals<Out<typeof captureImageStored>, CaptureImageStored>,
  CaptureFrameStored: true as Equals<Out<typeof captureFrameStored>, CaptureFrameStored>,
  CaptureImageCheck: true as Equals<Out<typeof captureImageCheck>, CaptureImageCheck>,
  DataSubjectRequest: true as Equals<Out<typeof dataSubjectRequest>, DataSubjectRequest>,
  DsarExport: true as Equals<Out<typeof dsarExport>, DsarExport>,
  DsarArtifact: true as Equals<Out<typeof dsarArtifact>, DsarArtifact>,
  EmailLogEntry: true as Equals<Out<typeof emailLogEntry>, EmailLogEntry>,
  ActivityEntry: true as Equals<Out<typeof activityEntry>, ActivityEntry>,
  ErasureKeySet: true as Equals<Out<typeof erasureKeySet>, ErasureKeySet>,
  ErrorEnvelope: true as Equals<Out<typeof errorEnvelope>, ErrorEnvelope>,
} satisfies Record<string, true>;

describe('response schemas and libs/domain/contracts', () => {
  it('are the same types (checked by the compiler)', () => {
    assert.ok(Object.values(checks).every((v) => v === true));
  });
});
