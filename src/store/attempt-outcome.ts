/**
 * How a logged attempt ended, as the stats count it and the attempt log lists it: one SQL expression
 * over `attempts a JOIN deliveries d ON d.id = a.delivery_id`, so the chart and the table cannot disagree.
 * A failed attempt is `failed` when it was its delivery's last and the delivery ended there (given
 * up, or canceled by turning the subscription off); else another attempt follows or followed.
 */
export const ATTEMPT_OUTCOME_SQL = `CASE WHEN a.succeeded = 1 THEN 'succeeded'
                 WHEN d.state IN ('failed', 'canceled') AND a.attempt = d.attempts THEN 'failed'
                 ELSE 'retrying' END`
