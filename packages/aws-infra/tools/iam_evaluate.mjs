// Evaluate IAM requests against identity policies with @cloud-copilot/iam-simulate.
// stdin: {"account": "...", "jobs": [{"id", "principal", "policy", "requests": [
//          {"action", "resource", "context"}]}]}
// stdout: {"<id>": [{"decision": "Allowed"|"ImplicitlyDenied"|..., "allowedBy": [sid...],
//                    "errors": null|{...}}]}  (one entry per request, in order)
import { runSimulation } from '@cloud-copilot/iam-simulate'

const chunks = []
for await (const chunk of process.stdin) chunks.push(chunk)
const input = JSON.parse(Buffer.concat(chunks).toString('utf8'))

const out = {}
for (const job of input.jobs) {
  const results = []
  for (const request of job.requests) {
    const response = await runSimulation({
      identityPolicies: [{ name: job.id, policy: job.policy }],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      request: {
        action: request.action,
        principal: job.principal,
        resource: { accountId: input.account, resource: request.resource },
        contextVariables: request.context || {},
      },
    }, {})
    if (response.resultType === 'error') {
      results.push({ decision: 'Error', allowedBy: [], errors: response.errors })
      continue
    }
    const result = response.resultType === 'single' ? response.result : response.results[0]
    const allows = result?.analysis?.identityAnalysis?.allowStatements ?? []
    results.push({
      decision: response.overallResult,
      allowedBy: allows.map((s) => s.explain?.identifier ?? String(s.statementId ?? '?')),
      errors: null,
    })
  }
  out[job.id] = results
}
process.stdout.write(JSON.stringify(out))
