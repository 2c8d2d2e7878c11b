// A website page's Markdown as HTML a visitor's browser may be given: markdown-it with raw HTML
// off and its own link check, then sanitize-html's allow-list as a second, independent fence. No
// images: the pages' CSP loads images from this service only, and pictures are the galleries'.
// The allowed tags and schemes: docs/website.md, "Navigation, pages and footer".
import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

const md = new MarkdownIt({ html: false, linkify: true, typographer: true, breaks: false });
// An image is shown as its description (see above).
md.renderer.rules.image = (tokens, idx) => md.utils.escapeHtml(tokens[idx].content);

const POLICY: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'a', 'em', 'strong', 'del', 's', 'code', 'pre', 'blockquote', 'hr', 'br', 'table', 'thead', 'tbody', 'tr', 'th', 'td'],
  allowedAttributes: { a: ['href', 'title', 'rel'], ol: ['start'], th: ['align'], td: ['align'] },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: {
    // The page's own title is its one h1: headings in the text start at h2.
    h1: 'h2',
    // Links leave the website: the visitor's browser tells the other site nothing of where they came from.
    a: (tagName, attribs) => ({ tagName, attribs: /^https?:/i.test(attribs.href ?? '') ? { ...attribs, rel: 'noopener noreferrer nofollow' } : attribs }),
  },
};

/** The HTML of a page's Markdown: sanitised, safe to put in a page as it is. */
export function renderMarkdown(text: string): string {
  return sanitizeHtml(md.render(text), POLICY);
}
