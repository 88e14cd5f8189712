/** A row of a help text: the words of a call, and what it does ('\n' starts a further line). */
export type HelpRow = readonly [words: string, about: string];

/**
 * Rows as a help text lists them: `  words` padded to `width`, then what it does; words as long
 * as that stand on a line of their own. Further lines of `about` are indented under the first.
 */
export function helpRows(rows: readonly HelpRow[], width: number): string {
  const indent = ' '.repeat(width + 2);
  return rows
    .map(([words, about]) => {
      const [first, ...more] = about.split('\n');
      const head =
        words.length < width ? `  ${words.padEnd(width)}${first}` : `  ${words}\n${indent}${first}`;
      return [head, ...more.map((line) => `${indent}${line}`)].join('\n');
    })
    .join('\n');
}

/**
 * The help of one subcommand of a command whose help lists them all: its calls after `usage`
 * (e.g. `Usage: npm run feed -- `), then its rows of that list, and `--help`'s.
 */
export function subcommandHelp(usage: string, rows: readonly HelpRow[], width: number): string {
  const calls = rows.map(([words]) => words).join(`\n${' '.repeat(usage.length)}`);
  return `${usage}${calls}\n\n${helpRows([...rows, ['--help', 'this text']], width)}`;
}
