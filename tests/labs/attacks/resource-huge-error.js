// lab: safe-release
// what: a 100 MB error message, and a 100 MB log line (the host must cut both, not print them whole)
const big = 'x'.repeat(100 * 1024 * 1024);
console.log(big);
throw new Error(big);

export async function acquire() { return null; }
export async function release() {}
