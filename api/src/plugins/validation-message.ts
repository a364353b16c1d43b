import type { ErrorObject } from 'ajv';

/** `Invalid body field `rate_limit`: must be <= 3000.` and the like. */
export function describeValidationError(error: ErrorObject, part: string): string {
  const params = error.params as { additionalProperty?: string; missingProperty?: string };
  const segments = error.instancePath.split('/').slice(1);
  let rule = error.message ?? 'is invalid';
  if (error.keyword === 'additionalProperties' && params.additionalProperty !== undefined) {
    segments.push(params.additionalProperty);
    rule = 'is not allowed';
  } else if (error.keyword === 'required' && params.missingProperty !== undefined) {
    segments.push(params.missingProperty);
    rule = 'is required';
  } else if (error.keyword === 'pattern') {
    rule = 'has an invalid format';
  }
  const field = segments
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce(
      (path, segment) =>
        /^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment,
      '',
    );
  return `Invalid ${part}${field ? ` field \`${field}\`` : ''}: ${rule}.`;
}
