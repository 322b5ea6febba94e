#!/usr/bin/env node
import { main } from '../dist/bin/main.js'

// A reader that stops early (`mockapi endpoints | head`) is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0)
  throw error
})

process.exitCode = await main(process.argv.slice(2))
