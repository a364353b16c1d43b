/** pino's numeric levels, as the labels a reader expects. */
const LEVELS: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** Fields every line carries that would only add noise next to the process prefix. */
const HIDDEN_FIELDS = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name', 'service', 'err']);

type LogRecord = Record<string, unknown> & { level: number };

/**
 * Turns one pino JSON line into `12:00:01.234 INFO  message key=value`, with an error's stack on
 * the lines below. Any other line (plain text, a crash trace) is returned unchanged.
 */
export function formatLogLine(line: string): string {
  const record = parseRecord(line);
  if (record === undefined) return line;
  const time = typeof record.time === 'number' ? new Date(record.time).toISOString().slice(11, 23) : '';
  const level = (LEVELS[record.level] ?? String(record.level)).padEnd(5);
  const fields = Object.entries(record)
    .filter(([key]) => !HIDDEN_FIELDS.has(key))
    .map(([key, value]) => `${key}=${formatValue(value)}`);
  const head = [time, level, typeof record.msg === 'string' ? record.msg : '', ...fields].filter(Boolean);
  return [head.join(' '), ...errorLines(record.err)].join('\n');
}

function parseRecord(line: string): LogRecord | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    const isRecord = typeof value === 'object' && value !== null && !Array.isArray(value);
    return isRecord && typeof (value as LogRecord).level === 'number' ? (value as LogRecord) : undefined;
  } catch {
    return undefined;
  }
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

function errorLines(err: unknown): string[] {
  if (typeof err !== 'object' || err === null) return [];
  const { stack, message } = err as { stack?: unknown; message?: unknown };
  const text =
    typeof stack === 'string' ? stack : typeof message === 'string' ? message : JSON.stringify(err);
  return text.split('\n').map((line) => `    ${line}`);
}
