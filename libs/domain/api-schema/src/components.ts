import type { z } from 'zod';
import { applicant, applicantInput } from './applicants.js';
import { page } from './common.js';
import {
  apiKey,
  capture,
  captureCheckBody,
  captureFrameStored,
  captureImageCheck,
  captureImageStored,
  captureSkipBody,
  captureSubmitBody,
  dataSubjectRequest,
  dsarCreateBody,
  erasureKeySet,
  errorEnvelope,
  healthLive,
  healthReady,
  idScanResult,
  idScanUpload,
  rateLimitDetails,
  validationIssue,
  webhookAttempt,
  webhookEvent,
} from './resources.js';
import { idv, session, sessionCheck, sessionCreateBody, sessionDecisionBody, sessionMetadataInput, sessionNoteBody, sessionReasonBody, sessionScreening } from './sessions.js';
import { condition, screeningRule, templateCreateBody, templatePatchBody, workflowTemplate } from './templates.js';

/** Named schemas of request bodies, converted as input (defaults make a member optional). */
export const REQUEST_COMPONENTS = {
  ApplicantInput: applicantInput,
  WorkflowTemplateCreate: templateCreateBody,
  WorkflowTemplateUpdate: templatePatchBody,
  ScreeningRuleInput: screeningRule,
  ConditionInput: condition,
  SessionCreate: sessionCreateBody,
  SessionMetadataInput: sessionMetadataInput,
  SessionNote: sessionNoteBody,
  SessionReason: sessionReasonBody,
  SessionDecision: sessionDecisionBody,
  DataSubjectRequestCreate: dsarCreateBody,
  IdScanUpload: idScanUpload,
  CaptureSubmit: captureSubmitBody,
  CaptureSkip: captureSkipBody,
  CaptureImageCheckInput: captureCheckBody,
} satisfies Record<string, z.ZodType>;

/** Named schemas of answers, converted as output (defaults applied: such a member is always there). */
export const RESPONSE_COMPONENTS = {
  ApiKey: apiKey,
  Applicant: applicant,
  ApplicantPage: page(applicant),
  WorkflowTemplate: workflowTemplate,
  WorkflowTemplatePage: page(workflowTemplate),
  ScreeningRule: screeningRule,
  Condition: condition,
  Session: session,
  SessionPage: page(session),
  Idv: idv,
  SessionCheck: sessionCheck,
  SessionScreening: sessionScreening,
  WebhookAttempt: webhookAttempt,
  WebhookAttemptPage: page(webhookAttempt),
  IdScanResult: idScanResult,
  Capture: capture,
  CaptureImageStored: captureImageStored,
  CaptureFrameStored: captureFrameStored,
  CaptureImageCheck: captureImageCheck,
  DataSubjectRequest: dataSubjectRequest,
  ErasureKeySet: erasureKeySet,
  HealthLive: healthLive,
  HealthReady: healthReady,
  Error: errorEnvelope,
  ValidationIssue: validationIssue,
  RateLimitDetails: rateLimitDetails,
  WebhookEvent: webhookEvent,
} satisfies Record<string, z.ZodType>;

export type RequestComponent = keyof typeof REQUEST_COMPONENTS;
export type ResponseComponent = keyof typeof RESPONSE_COMPONENTS;
