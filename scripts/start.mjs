// `npm start`: the build check (ensure-build.mjs: builds what is missing or stale), then the
// compiled server in this same process. Two Node processes one after the other (the check,
// then the server) cost a second Node start, about 0.1 s of each `npm start`.
import './ensure-build.mjs';

await import('../build/main.js');
