/**
 * pino options for a listener, or false for silence (tests). Credentials never reach a
 * log line: the credential headers are censored whatever a serializer is later changed to print.
 */
export function loggerOptions(
  logger: boolean | Record<string, unknown> | undefined,
): false | Record<string, unknown> {
  if (logger === false) return false;
  return {
    level: 'info',
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-svc-token"]', 'req.headers.cookie'],
      censor: '[redacted]',
    },
    ...(typeof logger === 'object' ? logger : {}),
  };
}
