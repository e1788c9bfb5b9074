/** The policy the unit tests of sql/policy/ decide with: the three cases of docs/reference/policy.md. */
import { parsePolicy } from '../../../../src/sql/policy/load.js';

export const POLICY_FILE = {
  sources: [
    { user: 'agent-.*', group: 'support', source: 'crm|files', allow: 'read' },
    { group: 'analysts', allow: 'read' },
    { user: 'finance-tool', source: 'erp', allow: 'all' },
    { user: 'finance-tool', source: 'crm', allow: 'read' },
    { user: 'blocked', allow: 'none' },
    { user: 'cleaner', source: 'erp', allow: 'all' },
  ],
  tables: [
    {
      group: 'support',
      source: 'crm',
      table: 'tickets',
      privileges: ['SELECT'],
      filter: "region = 'EU' AND assignee = CURRENT_USER()",
      columns: [
        { name: 'email', mask: "CONCAT(LEFT(email, 2), '***')" },
        { name: 'ssn', allow: false },
      ],
    },
    {
      group: 'analysts',
      table: 'customers|contacts',
      privileges: ['SELECT'],
      columns: [{ name: 'email', mask: "'***'" }],
    },
    { group: 'analysts', privileges: ['SELECT'] },
    { user: 'finance-tool', source: 'erp', table: 'invoices', privileges: ['SELECT', 'INSERT', 'UPDATE'] },
    { user: 'finance-tool', source: 'erp|crm', privileges: ['SELECT', 'INSERT', 'DELETE', 'OWNERSHIP'] },
    { user: 'cleaner', source: 'erp', table: 'trash', privileges: ['DELETE', 'UPDATE'] },
  ],
  knowledge_bases: [
    { group: 'support', name: 'tickets_kb', privileges: ['SELECT'] },
    { user: 'finance-tool', privileges: ['SELECT', 'INSERT', 'OWNERSHIP'] },
  ],
};

export const POLICY = parsePolicy(JSON.stringify(POLICY_FILE));

/**
 * The same rules without filters and masks (tests where no statement is rewritten).
 */
export const POLICY_UNFILTERED = parsePolicy(
  JSON.stringify({
    ...POLICY_FILE,
    tables: POLICY_FILE.tables.map((t) => {
      const { filter: _f, ...rest } = t as typeof t & { filter?: string };
      const columns = (t as { columns?: { name: string; mask?: string }[] }).columns?.filter((c) => !c.mask);
      return columns ? { ...rest, columns } : rest;
    }),
  }),
);
