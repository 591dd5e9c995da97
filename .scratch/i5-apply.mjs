import pg from 'pg';
import { PostgresDatabase } from '/work/wt/i5-bench/dist/store/postgres.js';
import { migrate } from '/work/wt/i5-bench/dist/store/migrate.js';
import { applyPlan, loadExistingProducts } from '/work/wt/i5-bench/dist/store/products.js';
import { validateCatalogue } from '/work/wt/i5-bench/dist/catalog/validate.js';
import { planSync } from '/work/wt/i5-bench/dist/catalog/plan.js';
import { newId } from '/work/wt/i5-bench/dist/catalog/ids.js';
import { body, catalogue } from '/work/wt/i5-bench/bench/products.mjs';
const name='i5_apply_'+Date.now(); const a=new pg.Client('postgres://postgres@127.0.0.1:5432/postgres'); await a.connect(); await a.query('CREATE DATABASE '+name);
const db=new PostgresDatabase({url:'postgres://postgres@127.0.0.1:5432/'+name,poolSize:2,statementTimeoutMs:60000}); await migrate(db);
const cats = new Set(['vps_cloud', 'vps_managed', 'web_shared', 'web_wordpress', 'dedicated', 'dedicated_gpu', 'storage', 'game_minecraft']);
const text=body(catalogue(10000)).toString();
for (let r=0;r<6;r++){
  const {rows:[h]}=await db.query("INSERT INTO hosts (slug,name) VALUES ($1,$1) RETURNING id",['h'+r]);
  const t0=performance.now(); const parsed=JSON.parse(text); const t1=performance.now();
  const v=validateCatalogue(parsed,{categories:cats,defaultCurrency:'USD',maxProducts:50000}); const t2=performance.now();
  let t3,t4,t5;
  await db.transaction(async tx=>{ const ex=await loadExistingProducts(tx,h.id); t3=performance.now(); const plan=planSync(ex,v.products,()=>newId('prd')); t4=performance.now(); await applyPlan(tx,h.id,plan); t5=performance.now();});
  const t6=performance.now();
  console.log(`parse ${(t1-t0).toFixed(0)} validate ${(t2-t1).toFixed(0)} load ${(t3-t2).toFixed(0)} plan ${(t4-t3).toFixed(0)} apply ${(t5-t4).toFixed(0)} commit ${(t6-t5).toFixed(0)}`);
}
await db.close(); await a.query('DROP DATABASE '+name+' WITH (FORCE)'); await a.end();
