-- One scan of the source: this batch's statistics, per class (and per category for
-- categorical models), into a temporary table that is merged into the model afterwards
-- (`into`: an update's planned scan, into the table fit/batch_table.sql created).
CREATE OR REPLACE TEMP TABLE "__sqlnb_batch_tiny" AS
-- Sums are taken around a shift close to the data, so m2 = S2 - S1^2 / W keeps its
-- precision: one literal per feature where the classes lie close together (no join, as
-- fast as a plain scan); per class where the pilot saw them far apart (each class's value
-- over the first rows, joined); per class (joined from the shifts table) for the features
-- a rescan needs.
SELECT
    __src."y" AS class,
    count(*) AS n,
CAST(count(*) AS DOUBLE) AS weight,
    count(CAST(__src."x0" AS DOUBLE)) AS c0_n,
    sum((CAST(__src."x0" AS DOUBLE) - coalesce(__pilot.c0, 3.0158761259052937e0))) AS c0_s1,
    sum((CAST(__src."x0" AS DOUBLE) - coalesce(__pilot.c0, 3.0158761259052937e0)) * (CAST(__src."x0" AS DOUBLE) - coalesce(__pilot.c0, 3.0158761259052937e0))) AS c0_s2,
max(coalesce(__pilot.c0, 3.0158761259052937e0)) AS c0_shift,
    count(CAST(__src."x1" AS DOUBLE)) AS c1_n,
    sum((CAST(__src."x1" AS DOUBLE) - coalesce(__pilot.c1, 3.0294769042382015e0))) AS c1_s1,
    sum((CAST(__src."x1" AS DOUBLE) - coalesce(__pilot.c1, 3.0294769042382015e0)) * (CAST(__src."x1" AS DOUBLE) - coalesce(__pilot.c1, 3.0294769042382015e0))) AS c1_s2,
max(coalesce(__pilot.c1, 3.0294769042382015e0)) AS c1_shift,
    count(CAST(__src."x2" AS DOUBLE)) AS c2_n,
    sum((CAST(__src."x2" AS DOUBLE) - coalesce(__pilot.c2, 2.9985681916126583e0))) AS c2_s1,
    sum((CAST(__src."x2" AS DOUBLE) - coalesce(__pilot.c2, 2.9985681916126583e0)) * (CAST(__src."x2" AS DOUBLE) - coalesce(__pilot.c2, 2.9985681916126583e0))) AS c2_s2,
max(coalesce(__pilot.c2, 2.9985681916126583e0)) AS c2_shift,
    count(CAST(__src."x3" AS DOUBLE)) AS c3_n,
    sum((CAST(__src."x3" AS DOUBLE) - coalesce(__pilot.c3, 2.9735291654540394e0))) AS c3_s1,
    sum((CAST(__src."x3" AS DOUBLE) - coalesce(__pilot.c3, 2.9735291654540394e0)) * (CAST(__src."x3" AS DOUBLE) - coalesce(__pilot.c3, 2.9735291654540394e0))) AS c3_s2,
max(coalesce(__pilot.c3, 2.9735291654540394e0)) AS c3_shift,
    count(CAST(__src."x4" AS DOUBLE)) AS c4_n,
    sum((CAST(__src."x4" AS DOUBLE) - coalesce(__pilot.c4, 3.038181807938575e0))) AS c4_s1,
    sum((CAST(__src."x4" AS DOUBLE) - coalesce(__pilot.c4, 3.038181807938575e0)) * (CAST(__src."x4" AS DOUBLE) - coalesce(__pilot.c4, 3.038181807938575e0))) AS c4_s2,
max(coalesce(__pilot.c4, 3.038181807938575e0)) AS c4_shift,
    count(CAST(__src."x5" AS DOUBLE)) AS c5_n,
    sum((CAST(__src."x5" AS DOUBLE) - coalesce(__pilot.c5, 3.018122299740536e0))) AS c5_s1,
    sum((CAST(__src."x5" AS DOUBLE) - coalesce(__pilot.c5, 3.018122299740536e0)) * (CAST(__src."x5" AS DOUBLE) - coalesce(__pilot.c5, 3.018122299740536e0))) AS c5_s2,
max(coalesce(__pilot.c5, 3.018122299740536e0)) AS c5_shift,
    count(CAST(__src."x6" AS DOUBLE)) AS c6_n,
    sum((CAST(__src."x6" AS DOUBLE) - coalesce(__pilot.c6, 2.9474335582578477e0))) AS c6_s1,
    sum((CAST(__src."x6" AS DOUBLE) - coalesce(__pilot.c6, 2.9474335582578477e0)) * (CAST(__src."x6" AS DOUBLE) - coalesce(__pilot.c6, 2.9474335582578477e0))) AS c6_s2,
max(coalesce(__pilot.c6, 2.9474335582578477e0)) AS c6_shift,
    count(CAST(__src."x7" AS DOUBLE)) AS c7_n,
    sum((CAST(__src."x7" AS DOUBLE) - coalesce(__pilot.c7, 3.014513771501846e0))) AS c7_s1,
    sum((CAST(__src."x7" AS DOUBLE) - coalesce(__pilot.c7, 3.014513771501846e0)) * (CAST(__src."x7" AS DOUBLE) - coalesce(__pilot.c7, 3.014513771501846e0))) AS c7_s2,
max(coalesce(__pilot.c7, 3.014513771501846e0)) AS c7_shift,
    count(CAST(__src."x8" AS DOUBLE)) AS c8_n,
    sum((CAST(__src."x8" AS DOUBLE) - coalesce(__pilot.c8, 3.074951189832395e0))) AS c8_s1,
    sum((CAST(__src."x8" AS DOUBLE) - coalesce(__pilot.c8, 3.074951189832395e0)) * (CAST(__src."x8" AS DOUBLE) - coalesce(__pilot.c8, 3.074951189832395e0))) AS c8_s2,
max(coalesce(__pilot.c8, 3.074951189832395e0)) AS c8_shift,
    count(CAST(__src."x9" AS DOUBLE)) AS c9_n,
    sum((CAST(__src."x9" AS DOUBLE) - coalesce(__pilot.c9, 3.001989723587231e0))) AS c9_s1,
    sum((CAST(__src."x9" AS DOUBLE) - coalesce(__pilot.c9, 3.001989723587231e0)) * (CAST(__src."x9" AS DOUBLE) - coalesce(__pilot.c9, 3.001989723587231e0))) AS c9_s2,
max(coalesce(__pilot.c9, 3.001989723587231e0)) AS c9_shift,
    count(CAST(__src."x10" AS DOUBLE)) AS c10_n,
    sum((CAST(__src."x10" AS DOUBLE) - coalesce(__pilot.c10, 2.974567588815398e0))) AS c10_s1,
    sum((CAST(__src."x10" AS DOUBLE) - coalesce(__pilot.c10, 2.974567588815398e0)) * (CAST(__src."x10" AS DOUBLE) - coalesce(__pilot.c10, 2.974567588815398e0))) AS c10_s2,
max(coalesce(__pilot.c10, 2.974567588815398e0)) AS c10_shift,
    count(CAST(__src."x11" AS DOUBLE)) AS c11_n,
    sum((CAST(__src."x11" AS DOUBLE) - coalesce(__pilot.c11, 3.0058057748060594e0))) AS c11_s1,
    sum((CAST(__src."x11" AS DOUBLE) - coalesce(__pilot.c11, 3.0058057748060594e0)) * (CAST(__src."x11" AS DOUBLE) - coalesce(__pilot.c11, 3.0058057748060594e0))) AS c11_s2,
max(coalesce(__pilot.c11, 3.0058057748060594e0)) AS c11_shift,
    count(CAST(__src."x12" AS DOUBLE)) AS c12_n,
    sum((CAST(__src."x12" AS DOUBLE) - coalesce(__pilot.c12, 2.993676808462699e0))) AS c12_s1,
    sum((CAST(__src."x12" AS DOUBLE) - coalesce(__pilot.c12, 2.993676808462699e0)) * (CAST(__src."x12" AS DOUBLE) - coalesce(__pilot.c12, 2.993676808462699e0))) AS c12_s2,
max(coalesce(__pilot.c12, 2.993676808462699e0)) AS c12_shift,
    count(CAST(__src."x13" AS DOUBLE)) AS c13_n,
    sum((CAST(__src."x13" AS DOUBLE) - coalesce(__pilot.c13, 2.9796668589123567e0))) AS c13_s1,
    sum((CAST(__src."x13" AS DOUBLE) - coalesce(__pilot.c13, 2.9796668589123567e0)) * (CAST(__src."x13" AS DOUBLE) - coalesce(__pilot.c13, 2.9796668589123567e0))) AS c13_s2,
max(coalesce(__pilot.c13, 2.9796668589123567e0)) AS c13_shift,
    count(CAST(__src."x14" AS DOUBLE)) AS c14_n,
    sum((CAST(__src."x14" AS DOUBLE) - coalesce(__pilot.c14, 3.036555013543785e0))) AS c14_s1,
    sum((CAST(__src."x14" AS DOUBLE) - coalesce(__pilot.c14, 3.036555013543785e0)) * (CAST(__src."x14" AS DOUBLE) - coalesce(__pilot.c14, 3.036555013543785e0))) AS c14_s2,
max(coalesce(__pilot.c14, 3.036555013543785e0)) AS c14_shift,
    count(CAST(__src."x15" AS DOUBLE)) AS c15_n,
    sum((CAST(__src."x15" AS DOUBLE) - coalesce(__pilot.c15, 2.9764472330728204e0))) AS c15_s1,
    sum((CAST(__src."x15" AS DOUBLE) - coalesce(__pilot.c15, 2.9764472330728204e0)) * (CAST(__src."x15" AS DOUBLE) - coalesce(__pilot.c15, 2.9764472330728204e0))) AS c15_s2,
max(coalesce(__pilot.c15, 2.9764472330728204e0)) AS c15_shift,
    count(CAST(__src."x16" AS DOUBLE)) AS c16_n,
    sum((CAST(__src."x16" AS DOUBLE) - coalesce(__pilot.c16, 2.970344816885799e0))) AS c16_s1,
    sum((CAST(__src."x16" AS DOUBLE) - coalesce(__pilot.c16, 2.970344816885799e0)) * (CAST(__src."x16" AS DOUBLE) - coalesce(__pilot.c16, 2.970344816885799e0))) AS c16_s2,
max(coalesce(__pilot.c16, 2.970344816885799e0)) AS c16_shift,
    count(CAST(__src."x17" AS DOUBLE)) AS c17_n,
    sum((CAST(__src."x17" AS DOUBLE) - coalesce(__pilot.c17, 2.9990145029253483e0))) AS c17_s1,
    sum((CAST(__src."x17" AS DOUBLE) - coalesce(__pilot.c17, 2.9990145029253483e0)) * (CAST(__src."x17" AS DOUBLE) - coalesce(__pilot.c17, 2.9990145029253483e0))) AS c17_s2,
max(coalesce(__pilot.c17, 2.9990145029253483e0)) AS c17_shift,
    count(CAST(__src."x18" AS DOUBLE)) AS c18_n,
    sum((CAST(__src."x18" AS DOUBLE) - coalesce(__pilot.c18, 3.013066386845528e0))) AS c18_s1,
    sum((CAST(__src."x18" AS DOUBLE) - coalesce(__pilot.c18, 3.013066386845528e0)) * (CAST(__src."x18" AS DOUBLE) - coalesce(__pilot.c18, 3.013066386845528e0))) AS c18_s2,
max(coalesce(__pilot.c18, 3.013066386845528e0)) AS c18_shift,
    count(CAST(__src."x19" AS DOUBLE)) AS c19_n,
    sum((CAST(__src."x19" AS DOUBLE) - coalesce(__pilot.c19, 3.037741208436941e0))) AS c19_s1,
    sum((CAST(__src."x19" AS DOUBLE) - coalesce(__pilot.c19, 3.037741208436941e0)) * (CAST(__src."x19" AS DOUBLE) - coalesce(__pilot.c19, 3.037741208436941e0))) AS c19_s2,
max(coalesce(__pilot.c19, 3.037741208436941e0)) AS c19_shift
FROM "__sqlnb_source_19365_1" AS __src
LEFT JOIN (
    SELECT *
    FROM (VALUES
        (CAST(2 AS BIGINT), 6.034524773478815e0, 6.0941875686801925e0, 6.021019007761056e0, 5.93265722550485e0, 6.076410080925444e0, 6.016951780979622e0, 5.963511477995311e0, 6.022086882512313e0, 6.046856423290928e0, 5.971937730666505e0, 5.944214028397104e0, 5.960255227292068e0, 5.919741037541404e0, 5.942265024640714e0, 6.055843644606966e0, 6.00759775087532e0, 5.952567153764414e0, 6.088975193677487e0, 5.997494534256437e0, 6.027978325139352e0),
        (CAST(0 AS BIGINT), 0.04980843442154575e0, -0.059208094583824394e0, -0.04591447634895392e0, -0.010351913761984832e0, 0.06786411556378498e0, -0.01975637302794192e0, -0.022212319141446186e0, 0.057010472866213996e0, 0.13024223524452885e0, 0.02831671252189211e0, 0.04049556074008461e0, -0.003698356268762928e0, 0.07788932482005792e0, -0.01844955334268085e0, 0.04492181289749405e0, -0.024668408488798976e0, 0.019134415236227303e0, -0.05643973660292298e0, 0.0420265373626791e0, 0.06721365723743118e0),
        (CAST(1 AS BIGINT), 2.9632951698155194e0, 3.0534512386182358e0, 3.0206000434258726e0, 2.998282184619254e0, 2.9702712273264957e0, 3.0571714912699273e0, 2.9010015159196785e0, 2.96444395912701e0, 3.047754910961728e0, 3.0057147275732956e0, 2.9389931773090052e0, 3.060860453394873e0, 2.9834000630266346e0, 3.0151851054390377e0, 3.008899583126896e0, 2.946412356831942e0, 2.939332881656755e0, 2.9645080517014804e0, 2.999678088917467e0, 3.018031642934041e0)
    ) AS __values(class, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19)
) AS __pilot ON __pilot.class = __src."y"
WHERE __src."y" IS NOT NULL
GROUP BY __src."y"

;
