/**
 * The one error type of Parley. Anything thrown that is not an ApiError is a bug:
 * the HTTP layer logs it and answers a generic 500 without internals.
 */
export class ApiError extends Error {
  constructor(
    public readonly code: string,
    msg: string,
    public readonly httpStatus = 400,
    public readonly extra: Record<string, unknown> = {},
  ) {
    super(msg);
  }

  toJSON(): Record<string, unknown> {
    return { result: 'error', msg: this.message, code: this.code, ...this.extra };
  }
}

/** Zulip's JsonableError default: HTTP 400, code BAD_REQUEST. */
export const badRequest = (msg: string, extra: Record<string, unknown> = {}) =>
  new ApiError('BAD_REQUEST', msg, 400, extra);

export const missingArgument = (name: string) =>
  new ApiError('REQUEST_VARIABLE_MISSING', `Missing '${name}' argument`, 400, { var_name: name });

export const unauthorized = (msg: string, code = 'UNAUTHORIZED') => new ApiError(code, msg, 401);

export const unauthorizedUser = () => badRequest('Unauthorized');

export const streamDoesNotExist = (stream: string) =>
  new ApiError('STREAM_DOES_NOT_EXIST', `Stream '${stream}' does not exist`, 400, { stream });

export const noSuchUser = () => badRequest('No such user');

export const insufficientPermission = () => badRequest('Insufficient permission');

// Zulip's OrganizationAdministratorRequired and friends: 400 with code UNAUTHORIZED_PRINCIPAL.
export const mustBeAdmin = () => new ApiError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator', 400);
export const mustBeOwner = () => new ApiError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner', 400);
export const mustBeStreamAdmin = () => new ApiError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization or stream administrator', 400);
