// gen09's reporter for node's built-in test runner (`node --test --test-reporter=THIS`).
// Node's own junit reporter names neither the file of a test nor its enclosing suites, so
// tests of the same name in two files collide; this one writes JUnit XML whose testcase
// carries classname = the file (relative to the working folder), name = the enclosing
// suite and test names joined by " > ", and a file attribute. Suites themselves are not
// tests. A file node reports as a test of its own (one that defines none) is named by its
// path relative to the working folder, as its classname is, not by its absolute path, which
// differs between two copies of the repository. Line breaks in an attribute are written as
// character references: an XML reader turns a literal one into a space. Read by
// gen09_reports.py (format "junit").
import path from 'node:path';

const escape = (text) => String(text)
  .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
  // eslint-disable-next-line no-control-regex
  .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
const attribute = (text) => escape(text).replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');

export default async function* gen09JunitReporter(source) {
  const open = new Map(); // file -> names of the tests started, by nesting
  yield '<?xml version="1.0" encoding="utf-8"?>\n<testsuites>\n';
  for await (const event of source) {
    const data = event.data || {};
    const file = data.file ? path.relative(process.cwd(), data.file).split(path.sep).join('/') : '';
    if (event.type === 'test:start') {
      const names = open.get(file) || [];
      names.length = data.nesting;
      names.push(data.name);
      open.set(file, names);
      continue;
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const details = data.details || {};
    if (details.type === 'suite') continue;
    const names = (open.get(file) || []).slice(0, data.nesting);
    const own = data.file && path.resolve(String(data.name)) === path.resolve(data.file) ? file : data.name;
    const name = [...names, own].join(' > ');
    const seconds = (details.duration_ms || 0) / 1000;
    let body = '';
    if (data.skip !== undefined || data.todo !== undefined) {
      body = '<skipped/>';
    } else if (event.type === 'test:fail') {
      const error = details.error || {};
      const cause = error.cause || error;
      const message = (cause && cause.message) || String(cause || 'failed');
      body = `<failure message="${attribute(message)}">${escape((cause && cause.stack) || message)}</failure>`;
    }
    yield `  <testcase classname="${attribute(file)}" name="${attribute(name)}" file="${attribute(file)}" ` +
      `time="${seconds}">${body}</testcase>\n`;
  }
  yield '</testsuites>\n';
}
