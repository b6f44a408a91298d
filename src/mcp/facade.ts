import { SvcError } from '../core/errors.js';
import type { SvcClient } from '../sdk/client.js';
import type { BrokeredOutcome, DecisionInput, DecisionOutcome } from '../sdk/outcome.js';
import type { CapabilityEntry } from '../sdk/wire.js';
import { capabilityTool, RESUME_TOOL, resumeTool, toolName, type ToolSpec } from './tools.js';

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError: boolean;
}

const result = (text: string, structured: Record<string, unknown>, isError: boolean): ToolResult => ({
  content: [{ type: 'text', text }],
  structuredContent: structured,
  isError,
});

/**
 * The MCP facade's logic, apart from any transport: tools from the daemon's capability list,
 * calls through the SDK. It holds no credential, policy or registration: every list and
 * every call asks the daemon, with the caller's own token.
 */
export class Facade {
  constructor(private readonly client: SvcClient) {}

  async tools(): Promise<ToolSpec[]> {
    // A daemon that cannot be reached throws here: never an empty tool list.
    const { capabilities } = await this.client.capabilities();
    // The resume tool keeps its name: a capability spelled `resume` is not offered as a tool.
    const offered = capabilities.filter((c) => toolName(c.name) !== RESUME_TOOL);
    return offered.length === 0 ? [] : [...offered.map(capabilityTool), resumeTool(offered)];
  }

  async call(name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
    try {
      const { capabilities } = await this.client.capabilities();
      if (name === RESUME_TOOL) {
        const { capability, ...rest } = args;
        const cap = capabilities.find((c) => c.name === capability);
        if (!cap) return unknownTool(String(capability), 'capability');
        const input = { ...rest, capability: cap.name } as DecisionInput;
        return describe(
          cap,
          input,
          cap.custody === 'brokered'
            ? await this.client.resumeBrokered(input)
            : await this.client.resume(input),
        );
      }
      // An exact capability name first; then the tool-name spelling of one with `:`.
      const cap =
        capabilities.find((c) => c.name === name) ?? capabilities.find((c) => toolName(c.name) === name);
      if (!cap) return unknownTool(name, 'tool');
      const input = { ...args, capability: cap.name } as DecisionInput;
      const out =
        cap.custody === 'brokered' ? await this.client.brokered(input) : await this.client.action(input);
      if (out.kind === 'unknown') {
        const found = await this.client.reconcile(input.task_id, input.effect_key_step).catch(() => null);
        return result(
          `${out.reason}. The journal ${found?.found ? `shows this key ${found.outcome} (intent ${found.intent_id})` : 'shows no decision for this key yet, which does not prove none was made'}. Do not retry with a new effect_key_step.`,
          { outcome: 'unknown', reconciled: found },
          true,
        );
      }
      return describe(cap, input, out);
    } catch (err) {
      if (!(err instanceof SvcError)) throw err;
      return result(
        `${err.code}: ${err.reason}${err.remedy ? `. Remedy: ${err.remedy}` : ''}`,
        {
          outcome: 'error',
          code: err.code,
          reason: err.reason,
          ...(err.remedy ? { remedy: err.remedy } : {}),
        },
        true,
      );
    }
  }
}

function unknownTool(name: string, what: string): ToolResult {
  return result(
    `no capability ${name} that this caller may use`,
    { outcome: 'error', code: 'unknown_tool', reason: `${what}: ${name} is not one of the listed tools` },
    true,
  );
}

function describe(
  cap: CapabilityEntry,
  input: DecisionInput,
  out: DecisionOutcome | BrokeredOutcome,
): ToolResult {
  switch (out.kind) {
    case 'allowed': {
      const provider = 'provider' in out.decision ? out.decision.provider : null;
      const done = provider
        ? `executed: the provider answered ${provider.outcome}${provider.effect_id ? ` (effect ${provider.effect_id})` : ''}`
        : out.decision.grant
          ? `grant ${out.decision.grant.grant_id} until ${out.decision.grant.expires_at} (authorization, not proof of execution)`
          : 'allowed';
      return result(
        `allowed: intent ${out.decision.intent_id}; ${done}`,
        { outcome: 'allowed', decision: out.decision },
        provider?.outcome === 'failed',
      );
    }
    case 'deferred':
      return result(
        `awaiting approval ${out.approval_id ?? ''}: nothing is authorized yet. After a human approver decides it ` +
          `(for example \`svc approvals approve ${out.approval_id ?? '<id>'}\`), call the ${RESUME_TOOL} tool with these arguments unchanged: ` +
          JSON.stringify({ capability: cap.name, ...withoutCapability(input) }),
        {
          outcome: 'deferred',
          approval_id: out.approval_id,
          resume: { tool: RESUME_TOOL, arguments: { capability: cap.name, ...withoutCapability(input) } },
          decision: out.decision,
        },
        false,
      );
    case 'refused':
      return result(
        `refused (${out.code}): ${out.reason}${out.remedy ? `. Remedy: ${out.remedy}` : ''}`,
        {
          outcome: 'refused',
          code: out.code,
          reason: out.reason,
          remedy: out.remedy,
          receipt: out.decision?.receipt ?? null,
        },
        true,
      );
    case 'conflict':
      return result(
        `conflict (${out.code}): ${out.reason}${out.remedy ? `. Remedy: ${out.remedy}` : ''}. Do not bypass it with a new effect_key_step.`,
        {
          outcome: 'conflict',
          code: out.code,
          reason: out.reason,
          intent_id: out.intent_id,
          prior_outcome: out.prior_outcome,
        },
        true,
      );
    case 'failure':
      return result(
        `the daemon could not complete (${out.code}): ${out.reason}${out.remedy ? `. Remedy: ${out.remedy}` : ''}`,
        {
          outcome: 'failure',
          code: out.code,
          reason: out.reason,
          intent_id: out.intent_id,
          executed: out.executed,
        },
        true,
      );
    default:
      return result(`${out.reason}`, { outcome: 'unknown' }, true);
  }
}

function withoutCapability(input: DecisionInput): Omit<DecisionInput, 'capability'> {
  const { capability: _c, ...rest } = input;
  return rest;
}
