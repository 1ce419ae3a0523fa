/** Reading the code blocks of the repository's documentation, so tests can run them as written. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The repository root. */
export const root = join(import.meta.dirname, '..', '..');

/** The code blocks of `language` in a Markdown file (path from the root), in order. */
export function codeBlocks(file: string, language: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const fence = new RegExp('^```' + language + '\\n([\\s\\S]*?)^```$', 'gm');
  return [...text.matchAll(fence)].map((match) => match[1]!);
}

/** The code blocks of `language` under the heading `heading` (up to the next heading of its level). */
export function codeBlocksUnder(file: string, heading: string, language: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${file} has no heading "${heading}"`);
  const level = heading.split(' ')[0]!;
  const next = text.indexOf(`\n${level} `, start + heading.length + 1);
  const section = text.slice(start, next < 0 ? undefined : next);
  const fence = new RegExp('^```' + language + '\\n([\\s\\S]*?)^```$', 'gm');
  return [...section.matchAll(fence)].map((match) => match[1]!);
}

/**
 * A shell block as commands, in order: comment lines dropped, lines continued with `\`
 * joined, a trailing `# comment` kept (the shell ignores it).
 */
export function shellCommands(block: string): string[] {
  const commands: string[] = [];
  let pending = '';
  for (const line of block.split('\n')) {
    if (pending === '' && (line.trim() === '' || line.trim().startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    commands.push(pending + line);
    pending = '';
  }
  return commands;
}
