// The rop extension: starts `ropc lsp` (docs/editor.md) for .rop files and hands it to VS Code's
// language client. Highlighting is the TextMate grammar (syntaxes/rop.tmLanguage.json) alone.
'use strict';

const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function serverArgs(config) {
    const args = ['lsp'];
    if (config.get('server.bind')) args.push('--bind');
    for (const dir of config.get('server.includeDirs') || []) args.push('-I', dir);
    return args;
}

function activate(context) {
    const config = vscode.workspace.getConfiguration('rop');
    const server = { command: config.get('server.path') || 'ropc', args: serverArgs(config) };
    client = new LanguageClient('rop', 'rop (ropc lsp)', server, {
        documentSelector: [{ scheme: 'file', language: 'rop' }, { scheme: 'untitled', language: 'rop' }],
    });
    context.subscriptions.push(client);
    return client.start();
}

function deactivate() {
    return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate, serverArgs };
