// gen09's reporter for vitest, listed before vitest's own json reporter: vitest's json report keeps
// each failed assertion's message and stack but not the diff vitest made of its two values, so this
// reporter writes that diff (its colours left out) into the error's stack, after the message, before
// the json reporter reads it when the run ends. Read by gen09_reports.py (format "jest-json").
const ANSI = /\x1b\[[0-9;]*m/g;

const withDiffs = (task) => {
  for (const error of task.result?.errors ?? []) {
    const diff = typeof error.diff === 'string' ? error.diff.replace(ANSI, '').trim() : '';
    const stack = String(error.stack || error.message || '');
    if (!diff || stack.includes(diff)) continue;
    const at = stack.search(/\n\s+at /);
    error.stack = at < 0 ? `${stack}\n\n${diff}` : `${stack.slice(0, at)}\n\n${diff}${stack.slice(at)}`;
  }
  for (const child of task.tasks ?? []) withDiffs(child);
};

export default class Gen09VitestDiff {
  onTestRunEnd(modules) {  // vitest 3 and later: before any reporter's onFinished
    for (const module of modules ?? []) if (module.task) withDiffs(module.task);
  }

  onFinished(files) {  // vitest before 3
    for (const file of files ?? []) withDiffs(file);
  }
}
