/**
 * The one error catalogue: every code a client can see, with its HTTP status, error type and
 * default message. Services raise codes; only the gateway turns them into HTTP.
 */
export type ErrorType =
  | 'authentication_error'
  | 'permission_error'
  | 'invalid_request_error'
  | 'rate_limit_error'
  | 'billing_error'
  | 'api_error';

export interface CatalogueEntry {
  readonly status: number;
  readonly type: ErrorType;
  readonly message: string;
}

export const ERROR_CATALOGUE = {
  invalid_json: { status: 400, type: 'invalid_request_error', message: 'The request body is not valid JSON.' },
  invalid_path: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The path contains an encoded slash, backslash or NUL, or a "." or ".." segment. Send the path as documented.',
  },
  malformed_request: { status: 400, type: 'invalid_request_error', message: 'The request is not valid HTTP.' },
  authentication_required: {
    status: 401,
    type: 'authentication_error',
    message: 'No API key was provided. Send it as "Authorization: Bearer <API_KEY>".',
  },
  invalid_api_key: { status: 401, type: 'authentication_error', message: 'The API key is malformed, unknown or revoked.' },
  invalid_capture_token: {
    status: 401,
    type: 'authentication_error',
    message: 'The client secret matches no verification. Use the client_secret of the session, as sent.',
  },
  payment_required: {
    status: 402,
    type: 'billing_error',
    message: 'The wallet balance is insufficient, or the wallet is locked or absent.',
  },
  region_mismatch: {
    status: 403,
    type: 'permission_error',
    message: "The API key belongs to another region. Send requests to the API endpoint of the key's region.",
  },
  insufficient_scope: { status: 403, type: 'permission_error', message: 'The API key lacks the scope this route needs.' },
  subscription_required: {
    status: 403,
    type: 'billing_error',
    message: 'The plan is canceled or past the payment grace period.',
  },
  esign_requirements_not_met: {
    status: 403,
    type: 'invalid_request_error',
    message: 'The signing document of the workflow needs session metadata that was not supplied.',
  },
  resource_not_found: { status: 404, type: 'invalid_request_error', message: 'No such resource.' },
  route_not_found: { status: 404, type: 'invalid_request_error', message: 'No such route.' },
  artifact_not_available: {
    status: 404,
    type: 'invalid_request_error',
    message: 'No image is stored for this artifact. Use another artifact listed in idv.available_images.',
  },
  request_timeout: {
    status: 408,
    type: 'invalid_request_error',
    message: 'The request did not arrive in time. Send it again, whole.',
  },
  invalid_state_transition: {
    status: 409,
    type: 'invalid_request_error',
    message: 'The session status does not allow this action.',
  },
  idempotency_key_in_use: {
    status: 409,
    type: 'invalid_request_error',
    message: 'A request with this Idempotency-Key is still running. Retry once it has answered.',
  },
  capture_expired: {
    status: 410,
    type: 'invalid_request_error',
    message: 'The capture link has expired. Ask for a new verification.',
  },
  file_too_large: { status: 413, type: 'invalid_request_error', message: 'An uploaded image is larger than 10 MiB.' },
  request_too_large: { status: 413, type: 'invalid_request_error', message: 'The request body is larger than allowed.' },
  unsupported_file_type: {
    status: 415,
    type: 'invalid_request_error',
    message: 'The upload is not a supported image (JPEG, PNG or WebP).',
  },
  validation_error: { status: 422, type: 'invalid_request_error', message: 'The request is invalid.' },
  idempotency_key_reused: {
    status: 422,
    type: 'invalid_request_error',
    message: 'This Idempotency-Key was used for another request (another path or body). Use a new key for a new request.',
  },
  document_unreadable: { status: 422, type: 'invalid_request_error', message: 'The document could not be read.' },
  invalid_image: { status: 422, type: 'invalid_request_error', message: 'The image could not be decoded.' },
  rate_limit_exceeded: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Too many requests. Retry after the time given in details.reset_at.',
  },
  request_header_too_large: {
    status: 431,
    type: 'invalid_request_error',
    message: 'The request line and headers together are larger than 16 KiB.',
  },
  internal_error: { status: 500, type: 'api_error', message: 'An unexpected error occurred.' },
  service_unavailable: {
    status: 503,
    type: 'api_error',
    message: 'A service did not answer in time. Nothing was changed; retry later.',
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, code);
}
