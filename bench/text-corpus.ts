/**
 * Real English text for the vector benches, from what `npm ci` installs: the sentences of the
 * packages' Markdown files (READMEs, changelogs, docs), code blocks left out, in a fixed order.
 * A corpus of technical prose, not conversations; what it gives the vector benches is real
 * sentences for learned word vectors (glove-embedder.ts) to embed.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Markdown files under `dir`, depth first, in name order. */
function markdownFiles(dir: string, out: string[] = [], depth = 0): string[] {
  if (depth > 6) return out;
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return out;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (name.toLowerCase().endsWith('.md')) out.push(path);
    else if (!name.includes('.') && statSync(path, { throwIfNoEntry: false })?.isDirectory())
      markdownFiles(path, out, depth + 1);
  }
  return out;
}

/** The distinct prose sentences (40 to 300 characters) of the installed packages' Markdown. */
export function installedSentences(
  root = join(import.meta.dirname, '..', 'node_modules'),
): string[] {
  const sentences = new Set<string>();
  for (const file of markdownFiles(root)) {
    const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, ' ');
    for (const raw of text.split(/(?<=[.!?])\s+/)) {
      const sentence = raw
        .replace(/[#*`>[\]()_|-]+/g, ' ')
        .replace(/\s+/g, ' ')
        .trim();
      if (sentence.length > 40 && sentence.length < 300 && /^[A-Za-z]/.test(sentence))
        sentences.add(sentence);
    }
  }
  return [...sentences];
}

/**
 * `count` distinct texts: the sentences, then pairs of them (sentence i followed by sentence
 * i + k for growing k) once the sentences run out, as a memory of many short notes would hold.
 */
export function textCorpus(sentences: readonly string[], count: number): string[] {
  const texts = sentences.slice(0, count);
  for (let k = 1; texts.length < count && k < sentences.length; k++)
    for (let i = 0; texts.length < count && i + k < sentences.length; i += 2)
      texts.push(`${sentences[i]} ${sentences[i + k]}`);
  return texts;
}
