import { describe, expect, it } from 'vitest';
import { capabilityTool, resumeTool, toolName } from '../../../src/mcp/tools.js';

const cap = (over: Partial<Parameters<typeof capabilityTool>[0]> = {}) => ({
  name: 'crm.contacts.create',
  tier: 1,
  irreversible: false,
  custody: 'brokered' as const,
  actions: ['write'],
  ...over,
});

describe('MCP tools from capability registrations', () => {
  it('limits action to the registered verbs and refuses unknown arguments', () => {
    const t = capabilityTool(cap({ actions: ['read', 'write'] }));
    expect(t.inputSchema).toMatchObject({
      properties: { action: { enum: ['read', 'write'] }, params: { type: 'object' } },
      required: ['action', 'task_id', 'effect_key_step'],
      additionalProperties: false,
    });
    expect(t.description).toMatch(/POST \/v1\/brokered/);
    expect(capabilityTool(cap({ custody: 'grant', irreversible: true })).description).toMatch(
      /POST \/v1\/action\).*approver must approve it first/,
    );
  });

  it('spells a capability with `:` as a valid MCP tool name', () => {
    expect(toolName('erp:invoice.pay')).toBe('erp_invoice.pay');
    expect(capabilityTool(cap({ name: 'erp:invoice.pay' })).name).toBe('erp_invoice.pay');
  });

  it('the resume tool names the capabilities and takes the same arguments', () => {
    const t = resumeTool([cap(), cap({ name: 'notes.read', actions: ['read'] })]);
    expect(t.inputSchema.properties).toMatchObject({
      capability: { enum: ['crm.contacts.create', 'notes.read'] },
      action: { enum: ['write', 'read'] },
    });
    expect(t.inputSchema.required).toEqual(['capability', 'action', 'task_id', 'effect_key_step']);
  });
});
