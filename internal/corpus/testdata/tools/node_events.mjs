// A reporter for node --test that writes the runner's own test:pass and
// test:fail events as JSON lines (the labels of the runner corpus;
// internal/corpus/testdata/labels.py reads them):
//
//   node --test --test-reporter=./node_events.mjs --test-reporter-destination=FILE
export default async function* events(source) {
  for await (const ev of source) {
    if (ev.type !== 'test:pass' && ev.type !== 'test:fail') {
      continue;
    }
    const d = ev.data;
    yield JSON.stringify({
      event: ev.type,
      name: d.name,
      nesting: d.nesting,
      file: d.file,
      kind: d.details?.type ?? 'test',
      skip: d.skip !== undefined && d.skip !== false,
      todo: d.todo !== undefined && d.todo !== false,
      failureType: d.details?.error?.failureType,
    }) + '\n';
  }
}
