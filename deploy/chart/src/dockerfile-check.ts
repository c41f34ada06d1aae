/**
 * The Dockerfile statements that can be checked without a Docker engine:
 * pinned base images, a non-root final user, no remote ADD, no secrets in
 * ENV/ARG (they would stay in the image's layers and history).
 */
export interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

/** Instructions with continuation lines joined and comments dropped. */
export function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let current = lines[i]!;
    if (/^\s*(#|$)/.test(current)) continue;
    while (current.trimEnd().endsWith('\\') && i + 1 < lines.length) {
      current = current.trimEnd().slice(0, -1) + ' ';
      i++;
      // Comment lines inside a continued instruction are ignored by Docker.
      if (!/^\s*#/.test(lines[i]!)) current += lines[i]!;
    }
    const match = /^\s*([A-Za-z]+)\s*(.*)$/.exec(current);
    if (match) out.push({ keyword: match[1]!.toUpperCase(), args: match[2]!.trim(), line: start + 1 });
  }
  return out;
}

const SECRET_NAME = /(SECRET|PASSWORD|PASSWD|TOKEN|API_?KEY|PRIVATE_?KEY|CREDENTIALS?)/i;

/** `name=value name2="v"` pairs of ENV/ARG (also the legacy `ENV name value`). */
function assignments(args: string): Array<[string, string | undefined]> {
  if (!args.includes('=')) {
    const [name, ...rest] = args.split(/\s+/);
    return [[name!, rest.length ? rest.join(' ') : undefined]];
  }
  return [...args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)(?:=("[^"]*"|'[^']*'|\S*))?/g)].map((m) => [m[1]!, m[2]]);
}

/** An image reference is pinned when it has a digest or an exact x.y.z version tag. */
export function isPinned(image: string): boolean {
  if (/@sha256:[0-9a-f]{64}$/.test(image)) return true;
  const tag = /:([^/:@]+)$/.exec(image)?.[1];
  return tag !== undefined && /^v?\d+\.\d+\.\d+([-.][\w.-]+)?$/.test(tag);
}

export function checkDockerfile(text: string): string[] {
  const problems: string[] = [];
  const instructions = parseDockerfile(text);
  const args = new Map<string, string | undefined>();
  const stages = new Set<string>();
  let user: { value: string; line: number } | undefined;
  for (const ins of instructions) {
    if (ins.keyword === 'ARG' || ins.keyword === 'ENV') {
      for (const [name, value] of assignments(ins.args)) {
        if (ins.keyword === 'ARG' && !args.has(name)) args.set(name, value?.replace(/^["']|["']$/g, ''));
        if (SECRET_NAME.test(name) && value !== undefined && value !== '' && value !== '""') problems.push(`line ${ins.line}: ${ins.keyword} ${name} puts a secret into the image (pass it at run time)`);
      }
    }
    if (ins.keyword === 'FROM') {
      const parts = ins.args.split(/\s+/).filter((p) => !p.startsWith('--'));
      const ref = parts[0]!;
      const alias = parts[1]?.toUpperCase() === 'AS' ? parts[2] : undefined;
      const image = ref.replace(/\$\{?(\w+)\}?/g, (_, n: string) => args.get(n) ?? `<unset ${n}>`);
      if (!stages.has(image) && image !== 'scratch' && !isPinned(image)) problems.push(`line ${ins.line}: FROM ${image} is not pinned (use an exact version tag or a digest)`);
      if (alias) stages.add(alias);
      user = undefined;
    }
    if (ins.keyword === 'USER') user = { value: ins.args, line: ins.line };
    if (ins.keyword === 'ADD' && /\b(https?|ftp|git):\/\/|git@/.test(ins.args)) problems.push(`line ${ins.line}: ADD of a remote URL (fetch it in a RUN with a checksum, or COPY it)`);
    if ((ins.keyword === 'COPY' || ins.keyword === 'ADD') && /(^|\s|\/)\.env(\.|\s|$)|id_rsa|\.npmrc\s/.test(ins.args)) problems.push(`line ${ins.line}: ${ins.keyword} of a secrets file`);
  }
  if (!user) problems.push('the final stage has no USER: it would run as root');
  else if (/^(root|0)(:|$)/.test(user.value)) problems.push(`line ${user.line}: USER ${user.value} runs as root`);
  return problems;
}
