/**
 * The deployment document `svc apply` reads: YAML (or JSON, which YAML reads too) that
 * declares one tenant's actors, capabilities, permissions, policy, tasks, approval channels
 * and notification destinations, with the same names as the CLI flags (snake_case, lists
 * plural). zod checks its shape; the same
 * validators as the CLI check the values. Every error names the path in the document and
 * the line and column it came from.
 */
import { dirname, resolve } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { SvcError } from '../core/errors.js';
import { readTextFile } from './text-file.js';

const names = z.array(z.string());
const usd = z.union([z.number(), z.string()]);

const ActorEntry = z.strictObject({
  id: z.string(),
  kind: z.string(),
  roles: names.optional(),
  manager: z.string().optional(),
  cert_subject: z.string().optional(),
  display_name: z.string().optional(),
  chat_user_id: z.string().optional(),
  collab_user_id: z.string().optional(),
});

const CapabilityEntry = z.strictObject({
  name: z.string(),
  tier: z.number(),
  irreversible: z.boolean().optional(),
  custody: z.string().optional(),
  actions: names,
  cost_usd: usd.optional(),
  requestable: z.boolean().optional(),
  approvers: names.optional(),
  owners: names.optional(),
  surface: z.string().optional(),
  operation: z.string().optional(),
});

const PermissionEntry = z.strictObject({ actor: z.string(), capability: z.string() });

const ChannelEntry = z.strictObject({
  id: z.string(),
  kind: z.string(),
  signing_secret_ref: z.string().optional(),
  openid_metadata: z.string().optional(),
  app_id: z.string().optional(),
  issuer: z.string().optional(),
});

/** `svc notify add`'s flags; secrets by file only, relative to this document. */
const NotificationEntry = z.strictObject({
  id: z.string(),
  kind: z.string(),
  url: z.string().optional(),
  events: names,
  channel: z.string().optional(),
  to_approvers: z.boolean().optional(),
  conversation: z.string().optional(),
  token_url: z.string().optional(),
  client_id: z.string().optional(),
  scope: z.string().optional(),
  from: z.string().optional(),
  to: names.optional(),
  smtp_user: z.string().optional(),
  console_url: z.string().optional(),
  smtp_ca_file: z.string().optional(),
  secret_file: z.string().optional(),
  secret_out: z.string().optional(),
  remind_after: z.string().optional(),
  escalate_to: z.string().optional(),
});

const PolicyFields = z.strictObject({ text: z.string().optional(), file: z.string().optional() });
const PolicyEntry = PolicyFields.refine((p) => (p.text === undefined) !== (p.file === undefined), {
  message: 'expected exactly one of text (the policy itself) or file (a path relative to this document)',
});

const TaskEntry = z.strictObject({
  id: z.string(),
  title: z.string().optional(),
  sponsor: z.string(),
  budget_usd: usd,
  draft: z.boolean().optional(),
  parent: z.string().optional(),
  actors: names.optional(),
});

export const DeploymentSchema = z.strictObject({
  version: z.literal(1),
  tenant: z.string(),
  actors: z.array(ActorEntry).optional(),
  capabilities: z.array(CapabilityEntry).optional(),
  permissions: z.array(PermissionEntry).optional(),
  policy: PolicyEntry.optional(),
  tasks: z.array(TaskEntry).optional(),
  channels: z.array(ChannelEntry).optional(),
  notifications: z.array(NotificationEntry).optional(),
});

export type Deployment = z.infer<typeof DeploymentSchema>;

/** The fields each section takes, for the message about a field it does not. */
const FIELDS: Record<string, string[]> = {
  '': Object.keys(DeploymentSchema.shape),
  actors: Object.keys(ActorEntry.shape),
  capabilities: Object.keys(CapabilityEntry.shape),
  permissions: Object.keys(PermissionEntry.shape),
  channels: Object.keys(ChannelEntry.shape),
  notifications: Object.keys(NotificationEntry.shape),
  policy: Object.keys(PolicyFields.shape),
  tasks: Object.keys(TaskEntry.shape),
};
export type DocPath = readonly (string | number)[];

const MAX_REPORTED = 20;

export class DeploymentDocument {
  private constructor(
    /** the path as the operator gave it, for messages */
    readonly file: string,
    readonly content: Deployment,
    private readonly yaml: Document.Parsed,
    private readonly lines: LineCounter,
  ) {}

  /** Parse and check the shape; every shape error at once, each with its line. */
  static parse(text: string, file: string): DeploymentDocument {
    const lines = new LineCounter();
    const yaml = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
    if (yaml.errors.length > 0) {
      throw report(
        file,
        yaml.errors.map((e) => {
          const { line, col } = lines.linePos(e.pos[0]);
          return `${file}:${line}:${col}: ${e.message}`;
        }),
      );
    }
    const data: unknown = yaml.toJS({ maxAliasCount: 100 });
    const parsed = DeploymentSchema.safeParse(data, { error: message });
    if (!parsed.success) {
      const position = (offset: number) => {
        const { line, col } = lines.linePos(offset);
        return `${file}:${line}:${col}`;
      };
      throw report(
        file,
        parsed.error.issues
          .flatMap((issue) => {
            const path = issue.path.filter((k): k is string | number => typeof k !== 'symbol');
            if (issue.code !== 'unrecognized_keys') {
              return [{ offset: offsetOf(yaml, path), text: `${pathText(path)}: ${issue.message}` }];
            }
            const known = (FIELDS[String(path[0] ?? '')] ?? []).join(', ');
            return issue.keys.map((key) => ({
              offset: offsetOf(yaml, [...path, key], true),
              text: `${pathText([...path, key])}: unknown field (expected one of ${known})`,
            }));
          })
          // In the order of the document, which is how an operator reads them.
          .sort((a, b) => a.offset - b.offset)
          .map((e) => `${position(e.offset)}: ${e.text}`),
      );
    }
    return new DeploymentDocument(file, parsed.data, yaml, lines);
  }

  static read(path: string): DeploymentDocument {
    return DeploymentDocument.parse(readTextFile('file', path), path);
  }

  /** The directory a `policy.file` is relative to. */
  get dir(): string {
    return dirname(resolve(this.file));
  }

  /** `file:line:column` of the node at `path`, or of its nearest ancestor that exists. */
  at(path: DocPath): string {
    const { line, col } = this.lines.linePos(offsetOf(this.yaml, path));
    return `${this.file}:${line}:${col}`;
  }

  /**
   * The literal text of a number in the document. A YAML number is read as a double;
   * money is parsed from what the operator wrote instead, so no digit is rounded away.
   */
  numberText(path: DocPath): string | undefined {
    const node = this.yaml.getIn(path, true);
    return isScalar(node) && typeof node.value === 'number' && typeof node.source === 'string'
      ? node.source
      : undefined;
  }

  /**
   * A validator's error about entry `index` of `section`, placed at the key it names:
   * validators name flags (`cost-usd`, `approver`), the document their snake_case plurals.
   */
  failIn(section: string, index: number, err: unknown): SvcError {
    const field = err instanceof SvcError ? err.field : undefined;
    const keys = FIELDS[section] ?? [];
    const key = field?.replaceAll('-', '_');
    const path: (string | number)[] = [section, index];
    if (key !== undefined && keys.includes(key)) path.push(key);
    else if (key !== undefined && keys.includes(`${key}s`)) path.push(`${key}s`);
    return this.fail(path, err);
  }

  /** An amount as written: its literal text when the document has it as a number. */
  amount(path: DocPath, value: string | number): string | number {
    return typeof value === 'number' ? (this.numberText(path) ?? value) : value;
  }

  /** A value error found after parsing, placed like a shape error. */
  fail(path: DocPath, err: unknown): SvcError {
    const e = err instanceof SvcError ? err : new SvcError('invalid_request', String(err));
    // Validators start their reason with the flag name; the document path replaces it.
    const reason =
      e.field !== undefined && e.reason.startsWith(`${e.field}: `)
        ? e.reason.slice(e.field.length + 2)
        : e.reason;
    return new SvcError(e.kind, `${this.at(path)}: ${pathText(path)}: ${reason}`, {
      field: pathText(path),
      ...(e.remedy !== undefined ? { remedy: e.remedy } : {}),
      ...(e.code !== e.kind ? { code: e.code } : {}),
    });
  }
}

/** Where the node at `path` starts in the text; `key` points at a map key rather than its value. */
function offsetOf(yaml: Document.Parsed, path: DocPath, key = false): number {
  let node: unknown = yaml.contents;
  for (const [i, step] of path.entries()) {
    let next: unknown;
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === step);
      next = pair && (key && i === path.length - 1 ? pair.key : (pair.value ?? pair.key));
    } else if (isSeq(node) && typeof step === 'number') {
      next = node.items[step];
    }
    if (next === undefined || next === null) break;
    node = next;
  }
  return (node as { range?: [number, number, number] } | null)?.range?.[0] ?? 0;
}

/** zod's messages in the project's words: what was expected, and what was found. */
function message(issue: { code?: string; input?: unknown; expected?: unknown }): string | undefined {
  if (issue.input === undefined) return 'required';
  if (issue.code === 'invalid_type')
    return `expected ${String(issue.expected)}, got ${describe(issue.input)}`;
  return undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'nothing (null)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)?.slice(0, 40)}`;
}

export function pathText(path: DocPath): string {
  if (path.length === 0) return '(document)';
  return path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
}

function report(file: string, lines: string[]): SvcError {
  const shown = lines.slice(0, MAX_REPORTED);
  const more = lines.length > shown.length ? `\n  (and ${lines.length - shown.length} more)` : '';
  const summary = lines.length === 1 ? '1 error' : `${lines.length} errors`;
  return new SvcError(
    'invalid_request',
    `${file} is not a valid deployment document, ${summary}:\n  ${shown.join('\n  ')}${more}`,
    {
      field: 'file',
      remedy: 'see docs/cli.md "svc apply" for the document format',
    },
  );
}
