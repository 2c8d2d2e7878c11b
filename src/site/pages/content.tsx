// A page of the website's navigation (About, Contact…): its Markdown as
// sanitised HTML (src/site/look/markdown.ts), the one place a page holds HTML
// that JSX did not write.
import type { VNode } from 'preact';
import { Layout, type Frame } from './layout.js';

export function ContentPage(props: { title: string; html: string; frame: Omit<Frame, 'title' | 'indexable'> }): VNode {
  return (
    <Layout {...props.frame} title={props.title} indexable>
      <article class="prose">
        <h1>{props.title}</h1>
        <div dangerouslySetInnerHTML={{ __html: props.html }} />
      </article>
    </Layout>
  );
}
