import type { CapabilityEntry } from '../sdk/wire.js';

/** An MCP tool description: a name, what it does, and the JSON Schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: {
    type: 'object';
    properties: Record<string, unknown>;
    required: string[];
    additionalProperties: false;
  };
}

export const RESUME_TOOL = 'resume';

/** MCP tool names allow letters, digits, `_`, `-` and `.`; a capability name may also hold `:`. */
export const toolName = (capability: string): string => capability.replaceAll(':', '_');

// The decision fields an agent chooses; the facade adds nothing of its own but the identity
// claims the SDK fills from the token.
const requestFields = (actions: readonly string[]) => ({
  action: { type: 'string', enum: [...actions], description: 'the verb to perform' },
  task_id: { type: 'string', description: 'the task this action is for (its budget pays)' },
  effect_key_step: {
    type: 'string',
    description:
      'the idempotency element: a new action takes a new step; a resume or retry repeats it unchanged',
  },
  amount_usd: {
    type: 'number',
    minimum: 0,
    description: 'estimate in USD; default: the capability estimate',
  },
  intent: { type: 'string', maxLength: 500, description: 'a short human description, published in receipts' },
  params: { type: 'object', description: "the operation's arguments (brokered capabilities)" },
});

/** One tool per capability the caller may use, its schema from the capability's registration. */
export function capabilityTool(c: CapabilityEntry): ToolSpec {
  const how =
    c.custody === 'brokered'
      ? 'The daemon executes it through its connector when allowed (POST /v1/brokered).'
      : c.custody === 'pass_through'
        ? 'An allowed decision authorizes it; the effect happens outside the daemon (POST /v1/action).'
        : 'An allowed decision mints a short-lived grant; nothing is executed (POST /v1/action).';
  return {
    name: toolName(c.name),
    description:
      `Ask the governance daemon to ${c.actions.join(' or ')} ${c.name} (tier ${c.tier}). ${how}` +
      (c.irreversible
        ? ' Irreversible: a human approver must approve it first; then call the resume tool.'
        : ''),
    inputSchema: {
      type: 'object',
      properties: requestFields(c.actions),
      required: ['action', 'task_id', 'effect_key_step'],
      additionalProperties: false,
    },
  };
}

/** Resume a deferral: the same capability and arguments as the deferred call, unchanged. */
export function resumeTool(capabilities: readonly CapabilityEntry[]): ToolSpec {
  const actions = [...new Set(capabilities.flatMap((c) => c.actions))];
  return {
    name: RESUME_TOOL,
    description:
      'Resume a deferred call after its approval was decided: send the same capability and arguments as the deferred call, unchanged.',
    inputSchema: {
      type: 'object',
      properties: {
        capability: {
          type: 'string',
          enum: capabilities.map((c) => c.name),
          description: 'the deferred tool',
        },
        ...requestFields(actions),
      },
      required: ['capability', 'action', 'task_id', 'effect_key_step'],
      additionalProperties: false,
    },
  };
}
