// A task's end in the editor's evaluation (index.js imports it between libraries).
await new Promise((resolve) => setTimeout(resolve, 0));
