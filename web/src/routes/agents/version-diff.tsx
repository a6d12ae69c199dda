import type { AgentDetail } from '@contract/agent-editor.ts';
import { useState } from 'react';
import { useVersionDiff } from '../../api/agent-release-queries.ts';
import { SelectField } from '../../components/ui/field.tsx';
import { LineDiff } from '../../components/ui/line-diff.tsx';
import { ErrorNote } from '../../components/ui/states.tsx';

/** Two versions' YAML side by side as one line diff; the server computes it, the page only draws it. */
export function VersionDiff({ agentId, versions, published }: { agentId: string; versions: AgentDetail['versions']; published: number | null }) {
  const newest = versions[0]?.version;
  const [from, setFrom] = useState<number | undefined>(published !== null && published !== newest ? published : versions[1]?.version);
  const [to, setTo] = useState<number | undefined>(newest);
  const diff = useVersionDiff(agentId, from, to);
  const choices = versions.map((version) => (
    <option key={version.version} value={version.version}>
      v{version.version}
    </option>
  ));
  return (
    <section className="card" aria-label="Compare versions">
      <h2>Compare versions</h2>
      <div className="field-row">
        <SelectField label="From" value={from ?? ''} onChange={(event) => setFrom(Number(event.target.value))}>
          {choices}
        </SelectField>
        <SelectField label="To" value={to ?? ''} onChange={(event) => setTo(Number(event.target.value))}>
          {choices}
        </SelectField>
      </div>
      {from === to && <p className="muted">Choose two different versions.</p>}
      {diff.error && <ErrorNote error={diff.error} />}
      {diff.data && from !== to && <LineDiff label={`Changes from v${diff.data.from} to v${diff.data.to}`} lines={diff.data.lines} />}
    </section>
  );
}
