// Every experiment the worker can run, by name: the union of web/experiments/<id>.js exports
// named `experiments`. Names are unique across files (a duplicate is an error at load).
const modules = import.meta.glob(['./*.js', '!./index.js'], { eager: true });

export const experiments = {};
for (const [file, m] of Object.entries(modules)) {
  for (const [name, fn] of Object.entries(m.experiments ?? {})) {
    if (name in experiments) throw new Error(`experiment ${name} is defined twice (${file})`);
    experiments[name] = fn;
  }
}
