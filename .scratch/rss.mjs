import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import pg from 'pg';
import { body, catalogue } from '../bench/products.mjs';
const opts = process.argv[2] ?? '';
const name='i5rss_'+Date.now(); const a=new pg.Client('postgres://postgres@127.0.0.1:5432/postgres'); await a.connect(); await a.query('CREATE DATABASE '+name);
const url='postgres://postgres@127.0.0.1:5432/'+name;
const port=30000+Math.floor(Math.random()*1000);
const c=spawn(process.execPath,[...opts.split(' ').filter(Boolean),'dist/main.js'],{env:{...process.env,PORT:String(port),DATABASE_URL:url,DATA_DIR:mkdtempSync('/tmp/i5rss'),ADMIN_TOKEN:'x'.repeat(20),LOG_LEVEL:'warn',SYNC_MAX_PER_WINDOW:'1000'},stdio:'inherit'});
const base=`http://127.0.0.1:${port}`;
for(;;){try{if((await fetch(base+'/healthz')).ok)break}catch{} await new Promise(r=>setTimeout(r,200))}
const hwm=()=>Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${c.pid}/status`,'utf8'))[1])/1024;
const payload=body(catalogue(50000));
for (let r=0;r<3;r++){
  const h=await (await fetch(base+'/admin/v1/hosts',{method:'POST',headers:{authorization:'Bearer '+'x'.repeat(20),'content-type':'application/json'},body:JSON.stringify({name:'h'+r})})).json();
  const before=hwm(); readFileSync; 
  const t=performance.now(); const res=await fetch(base+'/api/v1/sync/products',{method:'POST',headers:{authorization:'Bearer '+h.api_key.key,'content-type':'application/json'},body:payload}); await res.text();
  console.log(opts||'(default)', res.status, 'ms', (performance.now()-t).toFixed(0), 'hwm before', before.toFixed(0), 'after', hwm().toFixed(0));
  (await import('node:fs')).writeFileSync(`/proc/${c.pid}/clear_refs`,'5');
}
c.kill(); await new Promise(r=>c.once('exit',r)); await a.query('DROP DATABASE '+name+' WITH (FORCE)'); await a.end();
