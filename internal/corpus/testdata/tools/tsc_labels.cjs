// Prints the TypeScript compiler's diagnostics for the project in the
// current folder as JSON, read through its API (the labels of the runner
// corpus; internal/corpus/testdata/labels.py reads them):
//
//   {"files": [path...], "diagnostics": [{"file", "line", "column", "code", "category", "message"}]}
//
// Paths are relative to the project, lines and columns 1-based. Exits 2
// when there is an error, as tsc does.
//
//   node tsc_labels.cjs [tsconfig.json]
'use strict';
const path = require('node:path');
const ts = require(require.resolve('typescript', { paths: [process.cwd()] }));

const configPath = path.resolve(process.argv[2] || 'tsconfig.json');
const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } });
const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, projectReferences: config.projectReferences });
const rel = (f) => path.relative(process.cwd(), f);
const diagnostics = [...config.errors, ...ts.getPreEmitDiagnostics(program)].map((d) => {
  const out = {
    file: null,
    line: 0,
    column: 0,
    code: d.code,
    category: ts.DiagnosticCategory[d.category].toLowerCase(),
    message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  };
  if (d.file && d.start !== undefined) {
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    Object.assign(out, { file: rel(d.file.fileName), line: line + 1, column: character + 1 });
  }
  return out;
});
console.log(JSON.stringify({ files: config.fileNames.map(rel), diagnostics }, null, 1));
// As tsc: 2 when there are errors.
process.exitCode = diagnostics.some((d) => d.category === 'error') ? 2 : 0;
