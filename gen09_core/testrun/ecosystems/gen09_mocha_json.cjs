// gen09's reporter for mocha before 9 (`mocha --reporter THIS`), whose json reporter can
// neither write to a file nor name a test's file: the same report (tests, pending, failures,
// passes), each entry with its file, written to $GEN09_REPORT when the run ends. A failed
// hook is a failure that is no test. Read by gen09_reports.py (format "mocha-json").
'use strict';
const fs = require('fs');

const entry = (test) => {
  const err = test.err || {};
  return {
    title: test.title, fullTitle: test.fullTitle(), file: test.file, duration: test.duration,
    err: err.message || err.stack ? { message: String(err.message || ''), stack: String(err.stack || '') } : {},
  };
};

function Gen09MochaJson(runner) {
  const seen = { tests: [], pending: [], failures: [], passes: [] };
  runner.on('test end', (test) => seen.tests.push(test));
  runner.on('pass', (test) => seen.passes.push(test));
  runner.on('pending', (test) => seen.pending.push(test));
  runner.on('fail', (test, err) => {
    test.err = err;
    seen.failures.push(test);
  });
  runner.once('end', () => {
    const report = Object.fromEntries(Object.entries(seen).map(([key, tests]) => [key, tests.map(entry)]));
    fs.writeFileSync(process.env.GEN09_REPORT, JSON.stringify(report, null, 2));
  });
}

module.exports = Gen09MochaJson;
