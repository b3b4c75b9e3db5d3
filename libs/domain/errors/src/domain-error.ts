import { ERROR_CATALOGUE, isErrorCode, type ErrorCode, type ErrorType } from './catalogue.js';

/** One issue of a validation error: `path` is an array of path segments. */
export interface Issue {
  code: string;
  message: string;
  path: (string | number)[];
}

/** A domain error as data: what a service raises and what crosses NATS. */
export interface ErrorData {
  code: ErrorCode;
  message: string;
  param?: string;
  details?: Record<string, unknown>;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly param?: string;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, opts: { message?: string; param?: string; details?: Record<string, unknown> } = {}) {
    super(opts.message ?? ERROR_CATALOGUE[code].message);
    this.name = 'DomainError';
    this.code = code;
    this.param = opts.param;
    this.details = opts.details;
  }

  toData(): ErrorData {
    const data: ErrorData = { code: this.code, message: this.message };
    if (this.param !== undefined) data.param = this.param;
    if (this.details !== undefined) data.details = this.details;
    return data;
  }

  static fromData(data: ErrorData): DomainError {
    const code = isErrorCode(data.code) ? data.code : 'internal_error';
    return new DomainError(code, { message: data.message, param: data.param, details: data.details });
  }

  /** 422 validation_error from issues; `param` is the first segment of the first issue's path. */
  static validation(issues: Issue[], message?: string): DomainError {
    const first = issues[0]?.path[0];
    return new DomainError('validation_error', {
      message: message ?? issues[0]?.message ?? ERROR_CATALOGUE.validation_error.message,
      param: first === undefined ? undefined : String(first),
      details: { issues },
    });
  }

  static notFound(param?: string): DomainError {
    return new DomainError('resource_not_found', { param });
  }
}

export interface ErrorEnvelope {
  error: {
    code: ErrorCode;
    message: string;
    type: ErrorType;
    doc_url: string;
    request_id: string;
    param?: string;
    details?: Record<string, unknown>;
  };
}

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}

/** Build the public error envelope. Nothing but the fields of ErrorData reaches the client. */
export function toEnvelope(err: ErrorData, requestId: string, docsBaseUrl: string): ErrorEnvelope {
  const entry = ERROR_CATALOGUE[err.code];
  const body: ErrorEnvelope['error'] = {
    code: err.code,
    message: err.message,
    type: entry.type,
    doc_url: `${docsBaseUrl}/errors#${err.code}`,
    request_id: requestId,
  };
  if (err.param !== undefined) body.param = err.param;
  if (err.details !== undefined) body.details = err.details;
  return { error: body };
}
