// The model of smart-collection rules (docs/media-groups.md): which fields and
// operators exist and how a rule set is stored. The groups feature reads and
// validates rules from requests (src/groups/rules.ts) and compiles a stored
// set into SQL (src/groups/smart-repository.ts) for the media repository,
// which selects the medias.

export const RULE_OPERATORS = {
  keyword: ['is', 'is_not', 'contains'],
  rating: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'],
  shot_at: ['before', 'on_or_after', 'on', 'is_set', 'is_not_set'],
  file_type: ['is', 'is_not'],
  mime_type: ['is', 'is_not', 'starts_with'],
  gallery: ['in', 'not_in'],
  file_name: ['is', 'contains', 'starts_with', 'ends_with'],
  title: ['is', 'contains', 'starts_with', 'ends_with', 'is_set', 'is_not_set'],
} as const;

export type RuleField = keyof typeof RULE_OPERATORS;
export const FILE_TYPES = ['image', 'video', 'document'] as const;

export interface SmartRule {
  field: RuleField;
  operator: string;
  value: string;
}

export interface SmartRules {
  match: 'all' | 'any';
  rules: SmartRule[];
}

export const EMPTY_RULES: SmartRules = { match: 'all', rules: [] };

/** A stored rule set (JSON); anything unreadable matches every media, as no rules do. */
export function parseStoredRules(text: string | null): SmartRules {
  if (!text) return EMPTY_RULES;
  try {
    const v = JSON.parse(text) as SmartRules;
    return { match: v.match === 'any' ? 'any' : 'all', rules: Array.isArray(v.rules) ? v.rules : [] };
  } catch {
    return EMPTY_RULES;
  }
}
